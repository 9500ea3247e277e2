package dev.padlock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RLock;
import dev.padlock.testing.RedisBinary;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the walk of docs/operating/tls-and-acl.md ("First setup, from nothing to a lock") as the page
 * writes it: the blocks after {@code <!-- walk:sh -->} with {@code bash} in an empty directory, the
 * {@code <!-- walk:server -->} line as a {@code redis-server} this test starts on a free port (in
 * place of 6380; stopped by its own PID), the two {@code <!-- walk:acl -->} rules through the TLS
 * port, the {@code <!-- walk:java -->} code's configuration calls, and the
 * {@code <!-- walk:cli -->} command while the lock is held. Skipped, saying why, without
 * {@code openssl} or a TLS build of {@code redis-server}.
 */
class TlsFirstSetupWalkTest {
    private static final Path PAGE = Path.of("..", "docs", "operating", "tls-and-acl.md");
    private static final String PAGE_PORT = "6380";
    private static final Duration BOUND = Duration.ofSeconds(120);

    @TempDir
    Path directory;

    @Test
    void theFirstSetupWalkTakesALockOverTlsAsAnAclUserAndPadlockShowNamesItsHolder() throws Exception {
        assumeTrue(onPath("openssl", "version"), "openssl is not on the PATH: the walk's certificates need it");
        RedisBinary binary = RedisBinary.locate();
        assumeTrue(RedisBinary.supportsTls(binary.path()), () -> "redis-server " + binary.version() + " ("
                + binary.path() + ") was built without TLS");
        String page = Files.readString(PAGE, StandardCharsets.UTF_8);

        // the certificates and the trust store, as the page's sh blocks make them
        Path script = directory.resolve("walk.sh");
        Files.writeString(script, String.join("\n", blocks(page, "sh")) + "\n", StandardCharsets.UTF_8);
        ProcessBuilder bash = new ProcessBuilder("bash", "-euo", "pipefail", script.toString())
                .directory(directory.toFile()).redirectErrorStream(true)
                .redirectOutput(directory.resolve("walk.log").toFile());
        bash.environment().put("PATH", Path.of(System.getProperty("java.home"), "bin") + ":"
                + bash.environment().getOrDefault("PATH", "/usr/bin:/bin"));
        int status = run(bash.start());
        assertThat(status).as("the walk's sh blocks exited with %d:%n%s", status,
                Files.readString(directory.resolve("walk.log"))).isZero();

        // the Java code's configuration, taken from the page
        String java = single(blocks(page, "java"), "java");
        String uri = group(java, "\\.redisUri\\(\"([^\"]+)\"\\)");
        Path trustStore = directory.resolve(group(java, "\\.trustStore\\(Path\\.of\\(\"([^\"]+)\"\\)"));
        char[] password = group(java, "\\.trustStore\\(Path\\.of\\(\"[^\"]+\"\\), \"([^\"]*)\"\\.toCharArray\\(\\)\\)")
                .toCharArray();
        String lockName = group(java, "\\.getLock\\(\"([^\"]+)\"\\)");
        assertThat(uri).as("the Java code's URI").contains("127.0.0.1:" + PAGE_PORT);
        assertThat(storeSize(trustStore, password)).as("certificates in the page's trust store").isOne();
        assertThat(storeSize(trustStore, null))
                .as("the page says: a keytool store read with a null password holds nothing").isZero();

        int port = freePort();
        Process server = startServer(single(blocks(page, "server"), "server"), binary.path(), port);
        try {
            applyAclRules(page, port, trustStore, password);
            String tlsUri = uri.replace(":" + PAGE_PORT, ":" + port);
            try (LockClient client = LockClient.create(LockConfig.builder()
                    .redisUri(tlsUri)
                    .trustStore(trustStore, password)
                    .commandTimeout(Duration.ofSeconds(5))
                    .build())) {
                RLock lock = client.getLock(lockName);
                lock.lock();
                try {
                    Cli.Result show = new Cli(null).run(cliArguments(page, port));
                    assertThat(show.status()).as("padlock show: %s", show.err()).isZero();
                    assertThat(show.out()).as("padlock show's output").contains(lockName)
                            .contains(client.getId() + ":" + Thread.currentThread().getId());
                } finally {
                    lock.unlock();
                }
                assertThat(lock.isLocked()).isFalse();
            }
        } finally {
            server.destroy();
            if (!server.waitFor(10, TimeUnit.SECONDS)) {
                server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /** The fenced blocks that follow {@code <!-- walk:kind -->}, in order. */
    static List<String> blocks(String page, String kind) {
        List<String> found = new ArrayList<>();
        String[] lines = page.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            if (!lines[i].trim().equals("<!-- walk:" + kind + " -->")) {
                continue;
            }
            int open = i + 1;
            while (open < lines.length && lines[open].isBlank()) {
                open++;
            }
            assertThat(open < lines.length && lines[open].startsWith("```"))
                    .as("a fenced block after the marker walk:%s at line %d", kind, i + 1).isTrue();
            StringBuilder block = new StringBuilder();
            int line = open + 1;
            for (; line < lines.length && !lines[line].startsWith("```"); line++) {
                block.append(lines[line]).append('\n');
            }
            assertThat(line).as("the block after walk:%s at line %d is closed", kind, i + 1).isLessThan(lines.length);
            found.add(block.toString());
        }
        assertThat(found).as("blocks marked walk:%s in %s", kind, PAGE).isNotEmpty();
        return found;
    }

    private static String single(List<String> blocks, String kind) {
        assertThat(blocks).as("blocks marked walk:%s", kind).hasSize(1);
        return blocks.get(0);
    }

    /** A shell line's words, continuation lines joined (the page's commands quote nothing). */
    private static List<String> words(String block) {
        String joined = block.replace("\\\n", " ").trim();
        assertThat(joined).as("one command").doesNotContain("\n").doesNotContain("'").doesNotContain("\"");
        return List.of(joined.split("\\s+"));
    }

    /**
     * Starts the page's {@code redis-server} line with the located binary, on {@code port} in place
     * of 6380, its files relative to the walk's directory; the arguments added after the page's
     * keep the test's server to loopback, memory and its own log.
     */
    private Process startServer(String block, Path binary, int port) throws IOException {
        List<String> words = words(block);
        assertThat(words.get(0)).isEqualTo("redis-server");
        assertThat(words).as("the page's server flags").contains("--tls-port", PAGE_PORT);
        List<String> command = new ArrayList<>(List.of(binary.toString()));
        words.subList(1, words.size()).forEach(word -> command.add(word.equals(PAGE_PORT) ? String.valueOf(port) : word));
        Path log = directory.resolve("redis.log");
        command.addAll(List.of("--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no",
                "--dir", directory.toString(), "--logfile", log.toString()));
        Process server = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true)
                .redirectOutput(directory.resolve("redis.out").toFile()).start();
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(() -> {
            if (!server.isAlive()) {
                throw new AssertionError("redis-server exited: " + read(directory.resolve("redis.out")) + read(log));
            }
            return read(log).contains("Ready to accept connections");
        });
        return server;
    }

    /** Both rules of the page ({@code ACL SETUSER ...}), as the default user over the TLS port. */
    private static void applyAclRules(String page, int port, Path trustStore, char[] password) {
        List<String> rules = blocks(page, "acl");
        assertThat(rules).as("the library's and the CLI's rule").hasSize(2);
        RedisURI uri = RedisURI.create("rediss://127.0.0.1:" + port);
        RedisClient admin = RedisClient.create();
        try {
            admin.setOptions(io.lettuce.core.ClientOptions.builder()
                    .sslOptions(SslOptions.builder()
                            .truststore(SslOptions.Resource.from(trustStore.toFile()), password).build())
                    .build());
            try (StatefulRedisConnection<String, String> connection = admin.connect(uri)) {
                for (String rule : rules) {
                    List<String> words = List.of(rule.trim().split("\\s+"));
                    assertThat(words.subList(0, 2)).isEqualTo(List.of("ACL", "SETUSER"));
                    CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8);
                    words.subList(1, words.size()).forEach(args::add);
                    assertThat(connection.sync().dispatch(CommandType.ACL, new StatusOutput<>(StringCodec.UTF8), args))
                            .isEqualTo("OK");
                }
            }
        } finally {
            admin.shutdown(Duration.ZERO, Duration.ofSeconds(5));
        }
    }

    /** The page's {@code ./padlock ...} line: port and trust store of this walk. */
    private String[] cliArguments(String page, int port) {
        List<String> words = words(single(blocks(page, "cli"), "cli"));
        assertThat(words.get(0)).isEqualTo("./padlock");
        List<String> args = new ArrayList<>();
        for (String word : words.subList(1, words.size())) {
            if (word.startsWith("tls/")) {
                word = directory.resolve(word).toString();
            }
            args.add(word.replace("127.0.0.1:" + PAGE_PORT, "127.0.0.1:" + port));
        }
        assertThat(args).contains("--uri", "--trust-store", "show");
        return args.toArray(String[]::new);
    }

    private static int storeSize(Path file, char[] password) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            store.load(in, password);
        }
        return store.size();
    }

    private static String group(String text, String regex) {
        Matcher matcher = Pattern.compile(regex).matcher(text);
        assertThat(matcher.find()).as("the page's Java code has %s", regex).isTrue();
        return matcher.group(1);
    }

    private static int run(Process process) throws InterruptedException {
        if (!process.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("the walk's commands did not finish within " + BOUND);
        }
        return process.exitValue();
    }

    private static boolean onPath(String... command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return process.waitFor(30, TimeUnit.SECONDS) && process.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return socket.getLocalPort();
        }
    }

    private static String read(Path file) throws IOException {
        return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    }
}
