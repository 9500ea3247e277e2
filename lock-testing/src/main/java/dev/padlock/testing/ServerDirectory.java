package dev.padlock.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The temporary working directory of one {@link RedisServerProcess}: its configuration file (from
 * {@link RedisLaunchOptions#withConfigFile}), its logs ({@code redis.log}, {@code stdout.log}),
 * what the log says about readiness, and the directory's removal. Immutable; its files are the
 * server's.
 */
final class ServerDirectory {

    private static final Logger LOG = LoggerFactory.getLogger(ServerDirectory.class);
    private static final String STDOUT_LOG = "stdout.log";

    private final Path path;
    private final Optional<Path> configFile;

    private ServerDirectory(Path path, Optional<Path> configFile) {
        this.path = path;
        this.configFile = configFile;
    }

    /** Makes a new temporary directory, with the configuration file {@code options} carry. */
    static ServerDirectory create(RedisLaunchOptions options) throws IOException {
        Path path = Files.createTempDirectory("padlock-redis-");
        ServerDirectory directory = new ServerDirectory(path, options.configFileName().map(path::resolve));
        try {
            if (directory.configFile.isPresent()) {
                Files.writeString(directory.configFile.get(), options.configText().orElse(""), StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            directory.delete();
            throw e;
        }
        return directory;
    }

    Path path() {
        return path;
    }

    /** The configuration file, passed first on the command line; empty without one. */
    Optional<Path> configFile() {
        return configFile;
    }

    /** The server's log file. */
    Path logFile() {
        return path.resolve("redis.log");
    }

    /** Where the process's standard output and error go. */
    Path stdoutFile() {
        return path.resolve(STDOUT_LOG);
    }

    /** Whether the log says the server listens (a Sentinel logs its ID instead of "Ready ..."). */
    boolean logSaysReady() {
        try {
            if (!Files.exists(logFile())) {
                return false;
            }
            String log = Files.readString(logFile(), StandardCharsets.UTF_8);
            // A Sentinel logs its ID once it listens, and never "Ready to accept connections".
            return log.contains("Ready to accept connections") || log.contains("Sentinel ID is");
        } catch (IOException | UncheckedIOException e) {
            return false;
        }
    }

    /** The last 20 lines of the standard output and of the log, for a failure's message. */
    String logTail() {
        StringBuilder text = new StringBuilder();
        for (String name : List.of(STDOUT_LOG, "redis.log")) {
            Path file = path.resolve(name);
            try {
                if (Files.exists(file)) {
                    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
                    lines.subList(Math.max(0, lines.size() - 20), lines.size())
                            .forEach(line -> text.append(line).append('\n'));
                }
            } catch (IOException | UncheckedIOException e) {
                text.append("(cannot read ").append(file).append(": ").append(e).append(")\n");
            }
        }
        return text.toString();
    }

    /** Deletes the directory and everything in it; a failure is logged, not thrown. */
    void delete() {
        try (Stream<Path> paths = Files.walk(path)) {
            paths.sorted(Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            LOG.debug("Cannot delete {}", path, e);
        }
    }
}
