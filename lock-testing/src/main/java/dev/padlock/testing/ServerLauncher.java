package dev.padlock.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts one {@code redis-server} process on a given port and waits until it is ready: its log says
 * so (which proves that it is our process that listens, not another on that port) and it answers
 * {@code PING} over a plain socket ({@link RespProbe}). Tells a port already taken from any other
 * failure, so that the caller can retry. Immutable: what to run, where and how.
 */
final class ServerLauncher {

    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(15);
    private static final Duration PROBE_TIMEOUT = Duration.ofMillis(500);
    private static final Duration POLL_INTERVAL = Duration.ofMillis(20);

    /** How a launch ended: started (with its process), the port was taken, or another failure. */
    enum Result { STARTED, PORT_TAKEN, FAILED }

    /** A launch's result; {@code process} is the ready process when {@code STARTED}, else null. */
    record Launch(Result result, Process process) {
    }

    private final Path binary;
    private final List<String> extraArgs;
    private final RedisLaunchOptions options;
    private final ServerDirectory directory;

    ServerLauncher(Path binary, List<String> extraArgs, RedisLaunchOptions options,
            ServerDirectory directory) {
        this.binary = binary;
        this.extraArgs = List.copyOf(extraArgs);
        this.options = options;
        this.directory = directory;
    }

    /**
     * Starts the server on {@code port} (and {@code tlsPort} when the options ask for TLS) and
     * waits up to 15 s for it to be ready; a process that is not ready by then is killed.
     */
    Launch launch(int port, int tlsPort) {
        Process started;
        try {
            Files.deleteIfExists(directory.logFile());
            started = new ProcessBuilder(command(port, tlsPort))
                    .directory(directory.path().toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(directory.stdoutFile().toFile())
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start " + binary, e);
        }
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (!started.isAlive()) {
                return new Launch(directory.logTail().contains("Address already in use")
                        ? Result.PORT_TAKEN : Result.FAILED, null);
            }
            // The log line proves that it is our process that listens, not another on that port.
            if (directory.logSaysReady() && RespProbe.ping(RedisServerProcess.HOST, port, PROBE_TIMEOUT)
                    && started.isAlive()) {
                return new Launch(Result.STARTED, started);
            }
            ProcessControl.sleep(POLL_INTERVAL);
        }
        started.destroyForcibly();
        ProcessControl.awaitExit(started);
        return new Launch(Result.FAILED, null);
    }

    private List<String> command(int port, int tlsPort) {
        List<String> command = new ArrayList<>(List.of(binary.toString()));
        directory.configFile().ifPresent(file -> command.add(file.toString()));
        command.addAll(List.of(
                "--port", String.valueOf(port),
                "--bind", RedisServerProcess.HOST,
                "--save", "",
                "--appendonly", "no",
                "--protected-mode", "no",
                "--daemonize", "no",
                "--dir", directory.path().toString(),
                "--logfile", directory.logFile().toString()));
        options.tls().ifPresent(tls -> command.addAll(List.of(
                "--tls-port", String.valueOf(tlsPort),
                "--tls-cert-file", tls.certFile().toString(),
                "--tls-key-file", tls.keyFile().toString(),
                "--tls-ca-cert-file", tls.caCertFile().toString(),
                "--tls-auth-clients", "no")));
        command.addAll(extraArgs);
        return command;
    }
}
