package dev.padlock.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real {@code redis-server} process on a free loopback port, in its own temporary directory,
 * with persistence off. A test can stop it, kill it, restart it on the same port, and pause and
 * resume it (SIGSTOP/SIGCONT to its own PID only).
 *
 * <p>Implementation notes. Ports: a free port is picked with an ephemeral {@link ServerSocket},
 * which leaves a window in which another process can take it; a start that fails because the
 * port is taken is retried on a new port, a bounded number of times. A restart must keep its
 * port, so it retries on that same port until it frees, again bounded. Readiness is a
 * {@code PING} over a plain socket ({@link RespProbe}), after the log says so (a Sentinel logs its
 * ID instead of "Ready to accept connections"). Every process still running when the JVM exits
 * is stopped by one shutdown hook. {@link RedisLaunchOptions} add a configuration file (passed
 * first, as a Sentinel needs) and a port choice that leaves room for a cluster bus port.
 *
 * <p>All methods are thread-safe (synchronized on this object). Every blocking method is
 * bounded: see the constants below.
 */
public final class RedisServerProcess implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RedisServerProcess.class);

    /** The address every server binds. */
    public static final String HOST = "127.0.0.1";

    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(15);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration PROBE_TIMEOUT = Duration.ofMillis(500);
    private static final int NEW_PORT_ATTEMPTS = 5;
    private static final int BUS_PORT_CANDIDATES = 50;
    private static final int LOWEST_RANDOM_PORT = 10_000;
    private static final Duration SAME_PORT_BUDGET = Duration.ofSeconds(15);

    private static final Set<RedisServerProcess> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(RedisServerProcess::stopAllOnExit,
                "padlock-redis-shutdown"));
    }

    private final Path binary;
    private final String version;
    private final List<String> extraArgs;
    private final RedisLaunchOptions options;
    private final Path directory;

    /** Guarded by {@code this}; fixed after the first successful start. */
    private int port;
    /** Guarded by {@code this}; the TLS listener's port, 0 without one; fixed after the first start. */
    private int tlsPort;
    /** Guarded by {@code this}; null once stopped. */
    private Process process;
    /** Guarded by {@code this}. */
    private boolean paused;
    /** Guarded by {@code this}. */
    private boolean closed;

    private RedisServerProcess(Path binary, List<String> extraArgs, RedisLaunchOptions options)
            throws IOException {
        this.binary = binary;
        this.version = RedisBinary.version(binary);
        this.extraArgs = List.copyOf(extraArgs);
        this.options = options;
        this.directory = Files.createTempDirectory("padlock-redis-");
        try {
            if (options.configFileName().isPresent()) {
                Files.writeString(directory.resolve(options.configFileName().get()),
                        options.configText().orElse(""), StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            deleteDirectory();
            throw e;
        }
    }

    /** Starts a server from {@link RedisBinary#locate()} with no extra arguments. */
    public static RedisServerProcess start() {
        return start(RedisBinary.locate().path(), List.of());
    }

    /**
     * Starts a server from {@link RedisBinary#locate()}.
     *
     * @param extraArgs more {@code redis-server} arguments, e.g. {@code "--cluster-enabled", "yes"}
     */
    public static RedisServerProcess start(String... extraArgs) {
        return start(RedisBinary.locate().path(), List.of(extraArgs));
    }

    /**
     * Starts {@code binary} on a free loopback port and waits until it answers {@code PING}.
     *
     * @throws IllegalStateException when it does not come up within the bounded attempts
     */
    public static RedisServerProcess start(Path binary, List<String> extraArgs) {
        return start(binary, extraArgs, RedisLaunchOptions.defaults());
    }

    /**
     * Starts {@code binary} as {@link #start(Path, List)} does, launched as {@code options} say
     * (e.g. with a configuration file, or as a cluster node that needs a free bus port).
     *
     * @throws IllegalStateException when it does not come up within the bounded attempts
     */
    public static RedisServerProcess start(Path binary, List<String> extraArgs, RedisLaunchOptions options) {
        Objects.requireNonNull(binary, "binary");
        Objects.requireNonNull(extraArgs, "extraArgs");
        Objects.requireNonNull(options, "options");
        RedisServerProcess server;
        try {
            server = new RedisServerProcess(binary, extraArgs, options);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create a directory for redis-server", e);
        }
        synchronized (server) {
            server.startOnNewPort();
        }
        return server;
    }

    /** {@code redis://127.0.0.1:<port>}. */
    public String uri() {
        return "redis://" + HOST + ":" + port();
    }

    /**
     * {@code rediss://127.0.0.1:<tls port>}: the TLS listener of a server started with
     * {@link RedisLaunchOptions#withTls}.
     *
     * @throws IllegalStateException when it has none
     */
    public synchronized String tlsUri() {
        if (tlsPort == 0) {
            throw new IllegalStateException(this + " was started without TLS");
        }
        return "rediss://" + HOST + ":" + tlsPort;
    }

    /** The port; the same across restarts. */
    public synchronized int port() {
        return port;
    }

    /**
     * The PID of the current process.
     *
     * @throws IllegalStateException when it is not running
     */
    public synchronized long pid() {
        return requireRunning("pid").pid();
    }

    /** The server's version, e.g. {@code 7.0.15}. */
    public String version() {
        return version;
    }

    /**
     * The major version, e.g. {@code 7} for {@code 7.0.15}: what decides the features a test may
     * expect (sharded pub/sub, {@code CLUSTER ADDSLOTSRANGE} from 7).
     *
     * @throws IllegalStateException when the version does not start with a number
     */
    public int majorVersion() {
        int dot = version.indexOf('.');
        try {
            return Integer.parseInt(dot < 0 ? version : version.substring(0, dot));
        } catch (NumberFormatException e) {
            throw new IllegalStateException("Cannot read the major version of redis-server " + version, e);
        }
    }

    /** The binary this server runs. */
    public Path binary() {
        return binary;
    }

    /** The server's working directory (also holding {@code redis.log}). */
    public Path directory() {
        return directory;
    }

    /** The server's log file. */
    public Path logFile() {
        return directory.resolve("redis.log");
    }

    /**
     * The configuration file from {@link RedisLaunchOptions#withConfigFile}, in
     * {@link #directory()}; empty when started without one.
     */
    public Optional<Path> configFile() {
        return options.configFileName().map(directory::resolve);
    }

    /** Whether the process is alive (a paused process is alive). */
    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** Whether {@link #pause()} was called and not yet undone. */
    public synchronized boolean isPaused() {
        return paused && isRunning();
    }

    /**
     * Stops the server: SIGCONT when paused, SIGTERM, and SIGKILL when it has not exited after
     * 10 s. Does nothing when it is not running. Keeps the directory and port for
     * {@link #restart()}.
     */
    public synchronized void stop() {
        if (process == null) {
            return;
        }
        resumeQuietly();
        process.destroy();
        awaitExit(process, STOP_TIMEOUT);
        LOG.debug("Stopped redis-server on port {}", port);
        process = null;
        paused = false;
    }

    /** Kills the server with SIGKILL and waits (bounded) until it is gone. */
    public synchronized void kill() {
        if (process == null) {
            return;
        }
        process.destroyForcibly();
        awaitExit(process, STOP_TIMEOUT);
        process = null;
        paused = false;
    }

    /**
     * Stops the server (when running) and starts it again on the same port, retrying for up to
     * 15 s while the port is not yet free. The data set is empty afterwards (no persistence).
     *
     * @throws IllegalStateException when the port does not free up in time, or after
     *     {@link #close()}
     */
    public synchronized void restart() {
        requireOpen("restart");
        stop();
        long deadline = System.nanoTime() + SAME_PORT_BUDGET.toNanos();
        while (true) {
            StartResult result = launch(port, tlsPort);
            if (result == StartResult.STARTED) {
                return;
            }
            if (result == StartResult.FAILED || System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("redis-server did not restart on port " + port
                        + " within " + SAME_PORT_BUDGET + "; log:\n" + logTail());
            }
            sleep(Duration.ofMillis(100));
        }
    }

    /**
     * Sends SIGSTOP to this server's process: it stays connected but answers nothing until
     * {@link #resume()}.
     */
    public synchronized void pause() {
        Process current = requireRunning("pause");
        signal(current, "STOP");
        awaitState(current, 'T');
        paused = true;
    }

    /** Sends SIGCONT to this server's process. */
    public synchronized void resume() {
        Process current = requireRunning("resume");
        signal(current, "CONT");
        paused = false;
    }

    /** Stops the server, deletes its directory and forgets it. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            stop();
        } finally {
            LIVE.remove(this);
            deleteDirectory();
        }
    }

    @Override
    public String toString() {
        return "redis-server " + version + " at " + uri();
    }

    // ---- starting ----

    private enum StartResult { STARTED, PORT_TAKEN, FAILED }

    private void startOnNewPort() {
        for (int attempt = 1; attempt <= NEW_PORT_ATTEMPTS; attempt++) {
            int candidate = options.clusterBusPort() ? freePortWithBusPort() : freePort();
            int tlsCandidate = options.tls().isPresent() ? freePortOtherThan(candidate) : 0;
            StartResult result = launch(candidate, tlsCandidate);
            if (result == StartResult.STARTED) {
                port = candidate;
                tlsPort = tlsCandidate;
                LIVE.add(this);
                LOG.info("Started redis-server {} ({}) on port {}, pid {}", version, binary, port,
                        process.pid());
                return;
            }
            if (result == StartResult.FAILED) {
                break;
            }
        }
        deleteDirectory();
        throw new IllegalStateException("redis-server " + binary + " did not start; log:\n" + logTail());
    }

    private StartResult launch(int candidatePort, int tlsCandidatePort) {
        List<String> command = new ArrayList<>(List.of(binary.toString()));
        configFile().ifPresent(file -> command.add(file.toString()));
        command.addAll(List.of(
                "--port", String.valueOf(candidatePort),
                "--bind", HOST,
                "--save", "",
                "--appendonly", "no",
                "--protected-mode", "no",
                "--daemonize", "no",
                "--dir", directory.toString(),
                "--logfile", logFile().toString()));
        options.tls().ifPresent(tls -> command.addAll(List.of(
                "--tls-port", String.valueOf(tlsCandidatePort),
                "--tls-cert-file", tls.certFile().toString(),
                "--tls-key-file", tls.keyFile().toString(),
                "--tls-ca-cert-file", tls.caCertFile().toString(),
                "--tls-auth-clients", "no")));
        command.addAll(extraArgs);
        Process started;
        try {
            Files.deleteIfExists(logFile());
            started = new ProcessBuilder(command)
                    .directory(directory.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(directory.resolve("stdout.log").toFile())
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start " + binary, e);
        }
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (!started.isAlive()) {
                return logTail().contains("Address already in use")
                        ? StartResult.PORT_TAKEN : StartResult.FAILED;
            }
            // The log line proves that it is our process that listens, not another on that port.
            if (logSaysReady() && RespProbe.ping(HOST, candidatePort, PROBE_TIMEOUT)
                    && started.isAlive()) {
                process = started;
                paused = false;
                return StartResult.STARTED;
            }
            sleep(Duration.ofMillis(20));
        }
        started.destroyForcibly();
        awaitExit(started, STOP_TIMEOUT);
        return StartResult.FAILED;
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot find a free port on " + HOST, e);
        }
    }

    private static int freePortOtherThan(int taken) {
        for (int attempt = 0; attempt < BUS_PORT_CANDIDATES; attempt++) {
            int candidate = freePort();
            if (candidate != taken) {
                return candidate;
            }
        }
        throw new IllegalStateException("No second free port on " + HOST);
    }

    /**
     * A free port whose bus port (+ 10000) is at most 65535 and free too: an ephemeral port when
     * it fits, else a random one below the limit; a bounded number of candidates.
     */
    private static int freePortWithBusPort() {
        int highest = 65_535 - RedisLaunchOptions.CLUSTER_BUS_OFFSET;
        for (int attempt = 0; attempt < BUS_PORT_CANDIDATES; attempt++) {
            int candidate = attempt % 2 == 0
                    ? freePort()
                    : ThreadLocalRandom.current().nextInt(LOWEST_RANDOM_PORT, highest + 1);
            if (candidate <= highest && candidate != 6379 && isFree(candidate)
                    && isFree(candidate + RedisLaunchOptions.CLUSTER_BUS_OFFSET)) {
                return candidate;
            }
        }
        throw new IllegalStateException("No free port on " + HOST + " with a free cluster bus port after "
                + BUS_PORT_CANDIDATES + " candidates");
    }

    private static boolean isFree(int candidate) {
        try (ServerSocket socket = new ServerSocket(candidate, 1, InetAddress.getByName(HOST))) {
            return socket.getLocalPort() == candidate;
        } catch (IOException e) {
            return false;
        }
    }

    // ---- signals and waiting ----

    private static void signal(Process target, String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(target.pid()))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!kill.waitFor(5, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
                throw new IllegalStateException("kill -" + signal + " " + target.pid() + " hung");
            }
            if (kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + target.pid()
                        + " exited with " + kill.exitValue());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot run kill -" + signal, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while sending SIG" + signal, e);
        }
    }

    /** On Linux, waits (bounded) until /proc says the process is in {@code state}. */
    private static void awaitState(Process target, char state) {
        Path stat = Path.of("/proc", String.valueOf(target.pid()), "stat");
        if (!Files.exists(stat)) {
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() - deadline < 0) {
            try {
                String text = Files.readString(stat, StandardCharsets.US_ASCII);
                int afterName = text.lastIndexOf(')');
                if (afterName > 0 && afterName + 2 < text.length() && text.charAt(afterName + 2) == state) {
                    return;
                }
            } catch (IOException e) {
                return;
            }
            sleep(Duration.ofMillis(5));
        }
        throw new IllegalStateException("pid " + target.pid() + " did not reach state " + state);
    }

    private void resumeQuietly() {
        if (paused && process != null && process.isAlive()) {
            signal(process, "CONT");
        }
        paused = false;
    }

    /** Waits for exit; SIGKILL after {@code timeout}; never swallows an interrupt. */
    private static void awaitExit(Process target, Duration timeout) {
        if (waitUninterruptibly(target, timeout)) {
            return;
        }
        target.destroyForcibly();
        if (!waitUninterruptibly(target, timeout)) {
            throw new IllegalStateException("pid " + target.pid() + " survived SIGKILL for " + timeout);
        }
    }

    private static boolean waitUninterruptibly(Process target, Duration timeout) {
        boolean interrupted = false;
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (true) {
                try {
                    return target.waitFor(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for redis-server", e);
        }
    }

    private Process requireRunning(String operation) {
        requireOpen(operation);
        if (process == null || !process.isAlive()) {
            throw new IllegalStateException("Cannot " + operation + ": redis-server on port " + port
                    + " is not running");
        }
        return process;
    }

    private void requireOpen(String operation) {
        if (closed) {
            throw new IllegalStateException("Cannot " + operation + ": redis-server on port " + port
                    + " is closed");
        }
    }

    private boolean logSaysReady() {
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

    private String logTail() {
        StringBuilder text = new StringBuilder();
        for (String name : List.of("stdout.log", "redis.log")) {
            Path file = directory.resolve(name);
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

    private void deleteDirectory() {
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            LOG.debug("Cannot delete {}", directory, e);
        }
    }

    private static void stopAllOnExit() {
        for (RedisServerProcess server : List.copyOf(LIVE)) {
            try {
                server.close();
            } catch (RuntimeException e) {
                System.err.println("Could not stop " + server + ": " + e);
            }
        }
    }
}
