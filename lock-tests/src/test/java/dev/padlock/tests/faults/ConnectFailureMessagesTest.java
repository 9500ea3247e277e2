package dev.padlock.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RedisUnavailableException;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisBinary;
import dev.padlock.testing.RedisLaunchOptions;
import dev.padlock.testing.RedisServerProcess;
import dev.padlock.testing.TlsCertificates;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 38, item 2: a client that cannot connect says why in the first line of its
 * {@link RedisUnavailableException}, next to the operation and the address: the refused password,
 * the missing one, the database Redis refused, the TLS check that failed, the trust store that
 * could not be used (and which file), or the address where nothing listens. Each case runs
 * against a server this test starts; the TLS cases are skipped when the binary has no TLS.
 */
@Tag("faults")
class ConnectFailureMessagesTest {
    private static final String PASSWORD = "padlock-right";
    private static final Duration TIMEOUT = Duration.ofSeconds(3);
    /** The first line of each case's message, by test name, printed at the end for the record. */
    private static final Map<String, String> FIRST_LINES = new ConcurrentSkipListMap<>();

    @TempDir
    static Path files;
    private static RedisBinary binary;
    private static TlsCertificates tls;

    private String testName;

    @BeforeAll
    static void certificates() {
        binary = RedisBinary.locate();
        if (RedisBinary.supportsTls(binary.path())) {
            tls = TlsCertificates.create(files);
        }
    }

    @AfterAll
    static void printFirstLines() {
        FIRST_LINES.forEach((test, line) -> System.out.println("[first line] " + test + ": " + line));
    }

    @BeforeEach
    void name(TestInfo info) {
        testName = info.getTestMethod().orElseThrow().getName();
    }

    @Test
    void aWrongPasswordSaysAuthenticationFailed() {
        try (RedisServerProcess server = RedisServerProcess.start(); RedisAdmin admin = requirePassword(server)) {
            String line = firstLine(LockConfig.builder()
                    .redisUri("redis://:wrong-password@127.0.0.1:" + server.port()));

            assertThat(line).contains("connect at redis://***@127.0.0.1:" + server.port())
                    .contains("authentication failed").contains("WRONGPASS");
        }
    }

    @Test
    void noPasswordWhereOneIsRequiredSaysAuthenticationIsRequired() {
        try (RedisServerProcess server = RedisServerProcess.start(); RedisAdmin admin = requirePassword(server)) {
            String line = firstLine(LockConfig.builder().redisUri(server.uri()));

            assertThat(line).contains("connect at " + server.uri())
                    .contains("authentication required").contains("NOAUTH");
        }
    }

    @Test
    void aDatabaseTheServerDoesNotHaveSaysDatabaseSelectionFailed() {
        try (RedisServerProcess server = RedisServerProcess.start("--databases", "16")) {
            String uri = server.uri() + "/99";
            String line = firstLine(LockConfig.builder().redisUri(uri));

            assertThat(line).contains("connect at " + uri)
                    .contains("selecting database 99 failed").contains("DB index is out of range");
        }
    }

    @Test
    void aServerThatWantsAClientCertificateSaysSo() {
        assumeTls();
        // a later argument wins: this replaces the fixture's --tls-auth-clients no
        try (RedisServerProcess server = RedisServerProcess.start(binary.path(), List.of("--tls-auth-clients", "yes"),
                RedisLaunchOptions.defaults().withTls(tls.serverFiles()))) {
            String line = firstLine(trusting(server.tlsUri()));

            assertThat(line).contains("connect at " + server.tlsUri())
                    .contains("TLS handshake failed").contains("client certificate");
        }
    }

    @Test
    void aServerCertificateFromAnotherCaSaysItIsNotTrusted() throws IOException {
        assumeTls();
        TlsCertificates other = TlsCertificates.create(Files.createDirectories(files.resolve("other-ca")));
        try (RedisServerProcess server = tlsServer()) {
            String line = firstLine(LockConfig.builder().redisUri(server.tlsUri())
                    .trustStore(other.trustStore(), other.trustStorePassword()));

            assertThat(line).contains("connect at " + server.tlsUri())
                    .contains("TLS handshake failed").contains("certificate is not trusted by trust store")
                    .contains(other.trustStore().toString());
        }
    }

    @Test
    void anEmptyTrustStoreSaysItHoldsNoCertificate() throws Exception {
        assumeTls();
        Path empty = files.resolve("empty.p12");
        writeEmptyStore(empty, "changeit".toCharArray());
        try (RedisServerProcess server = tlsServer()) {
            String line = firstLine(LockConfig.builder().redisUri(server.tlsUri())
                    .trustStore(empty, "changeit".toCharArray()));

            assertThat(line).contains("connect at " + server.tlsUri())
                    .contains("trust store " + empty).contains("holds no certificate");
        }
    }

    @Test
    void aWrongTrustStorePasswordSaysTheStoreCannotBeRead() {
        assumeTls();
        try (RedisServerProcess server = tlsServer()) {
            String line = firstLine(LockConfig.builder().redisUri(server.tlsUri())
                    .trustStore(tls.trustStore(), "not-the-password".toCharArray()));

            assertThat(line).contains("connect at " + server.tlsUri())
                    .contains("trust store " + tls.trustStore()).contains("password");
        }
    }

    @Test
    void anAddressTheCertificateDoesNotNameSaysTheHostNameDoesNotMatch() {
        assumeTls();
        // the certificate names 127.0.0.1 and localhost; the server also listens on 127.0.0.2
        assumeTrue(loopbackAlias(), "127.0.0.2 is not a loopback address here");
        try (RedisServerProcess server = RedisServerProcess.start(binary.path(),
                List.of("--bind", RedisServerProcess.HOST, "127.0.0.2"),
                RedisLaunchOptions.defaults().withTls(tls.serverFiles()))) {
            String uri = server.tlsUri().replace(RedisServerProcess.HOST, "127.0.0.2");
            String line = firstLine(trusting(uri));

            assertThat(line).contains("connect at " + uri)
                    .contains("TLS handshake failed").contains("does not match").contains("127.0.0.2");
        }
    }

    @Test
    void anAddressWhereNothingListensSaysTheConnectionWasRefused() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(RedisServerProcess.HOST))) {
            port = socket.getLocalPort();
        }
        String uri = "redis://127.0.0.1:" + port;
        String line = firstLine(LockConfig.builder().redisUri(uri));

        assertThat(line).contains("connect at " + uri)
                .contains("cannot reach Redis").contains("connection refused");
    }

    /** The first line of the message of the client's failure to connect as {@code config} says. */
    private String firstLine(LockConfig.Builder config) {
        Throwable failure = catchThrowable(() -> LockClient.create(config.commandTimeout(TIMEOUT)
                .clientRegistry(false).build()).close());
        assertThat(failure).as("connecting").isInstanceOf(RedisUnavailableException.class);
        String line = failure.getMessage().lines().findFirst().orElse("");
        FIRST_LINES.put(testName, line);
        return line;
    }

    /**
     * {@code CONFIG SET requirepass} over an admin connection opened before it (which stays
     * authenticated): the fixture's readiness {@code PING} would get {@code NOAUTH} from a server
     * started with {@code --requirepass}.
     */
    private static RedisAdmin requirePassword(RedisServerProcess server) {
        RedisAdmin admin = RedisAdmin.connect(server.uri());
        admin.commands().configSet("requirepass", PASSWORD);
        return admin;
    }

    private static LockConfig.Builder trusting(String uri) {
        return LockConfig.builder().redisUri(uri).trustStore(tls.trustStore(), tls.trustStorePassword());
    }

    private static RedisServerProcess tlsServer() {
        return RedisServerProcess.start(binary.path(), List.of(), RedisLaunchOptions.defaults().withTls(tls.serverFiles()));
    }

    private static void assumeTls() {
        assumeTrue(tls != null, () -> "redis-server " + binary.version() + " (" + binary.path()
                + ") was built without TLS");
    }

    private static void writeEmptyStore(Path file, char[] password) throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        try (OutputStream out = Files.newOutputStream(file)) {
            store.store(out, password);
        }
    }

    private static boolean loopbackAlias() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.2"))) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
