package dev.padlock.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real {@code redis-server} process (or {@code valkey-server}: {@link RedisBinary.Choice}) on a
 * free loopback port, in its own temporary directory, with persistence off. A test can stop it, kill it, restart it on the same port, and pause and
 * resume it (SIGSTOP/SIGCONT to its own PID only).
 *
 * <p>Implementation notes. This class keeps the process's state and its lifecycle; one class a
 * job does the rest. Ports: a free port is picked by {@link FreePorts}, which leaves a window in
 * which another process can take it; a start that fails because the port is taken is retried on a
 * new port, a bounded number of times. A restart must keep its port, so it retries on that same
 * port until it frees, again bounded. {@link ServerLauncher} starts a process and waits for
 * readiness: a {@code PING} over a plain socket ({@link RespProbe}), after the log says so (a
 * Sentinel logs its ID instead of "Ready to accept connections"). {@link ServerDirectory} holds
 * the working directory, its configuration file and logs; {@link ProcessControl} sends signals to
 * the process's own PID and waits, bounded, for their effect. Every process still running when
 * the JVM exits is stopped by one shutdown hook. {@link RedisLaunchOptions} add a configuration
 * file (passed first, as a Sentinel needs) and a port choice that leaves room for a cluster bus
 * port.
 *
 * <p>All methods are thread-safe (synchronized on this object). Every blocking method is
 * bounded: see the constants below.
 */
public final class RedisServerProcess implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RedisServerProcess.class);

    /** The address every server binds. */
    public static final String HOST = "127.0.0.1";

    private static final int NEW_PORT_ATTEMPTS = 5;
    private static final Duration SAME_PORT_BUDGET = Duration.ofSeconds(15);

    private static final Set<RedisServerProcess> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(RedisServerProcess::stopAllOnExit,
                "padlock-redis-shutdown"));
    }

    private final Path binary;
    private final ServerVersion version;
    private final RedisLaunchOptions options;
    private final ServerDirectory directory;
    private final ServerLauncher launcher;

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
        this.version = RedisBinary.serverVersion(binary);
        this.options = options;
        this.directory = ServerDirectory.create(options);
        this.launcher = new ServerLauncher(binary, extraArgs, options, directory);
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

    /** The server's own version, e.g. {@code 7.0.15}, or {@code 8.0.1} for Valkey 8.0.1. */
    public String version() {
        return version.version();
    }

    /** What the server is (Redis or Valkey) and its version. */
    public ServerVersion serverVersion() {
        return version;
    }

    /**
     * The major version of the Redis whose features the server offers, e.g. {@code 7} for Redis
     * 7.0.15 and for every Valkey ({@link ServerVersion#redisMajor()}): what decides the features
     * a test may expect (sharded pub/sub, {@code CLUSTER ADDSLOTSRANGE} from 7).
     *
     * @throws IllegalStateException when the version does not start with a number
     */
    public int majorVersion() {
        return version.redisMajor();
    }

    /** The binary this server runs. */
    public Path binary() {
        return binary;
    }

    /** The server's working directory (also holding {@code redis.log}). */
    public Path directory() {
        return directory.path();
    }

    /** The server's log file. */
    public Path logFile() {
        return directory.logFile();
    }

    /**
     * The configuration file from {@link RedisLaunchOptions#withConfigFile}, in
     * {@link #directory()}; empty when started without one.
     */
    public Optional<Path> configFile() {
        return directory.configFile();
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
        ProcessControl.awaitExit(process);
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
        ProcessControl.awaitExit(process);
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
            ServerLauncher.Result result = launch(port, tlsPort);
            if (result == ServerLauncher.Result.STARTED) {
                return;
            }
            if (result == ServerLauncher.Result.FAILED || System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("redis-server did not restart on port " + port
                        + " within " + SAME_PORT_BUDGET + "; log:\n" + directory.logTail());
            }
            ProcessControl.sleep(Duration.ofMillis(100));
        }
    }

    /**
     * Sends SIGSTOP to this server's process: it stays connected but answers nothing until
     * {@link #resume()}.
     */
    public synchronized void pause() {
        Process current = requireRunning("pause");
        ProcessControl.signal(current, "STOP");
        ProcessControl.awaitStopped(current, ProcessPause.STOPPED_WITHIN);
        paused = true;
    }

    /** Sends SIGCONT to this server's process. */
    public synchronized void resume() {
        Process current = requireRunning("resume");
        ProcessControl.signal(current, "CONT");
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
            directory.delete();
        }
    }

    @Override
    public String toString() {
        return version.describe() + " at " + uri();
    }

    // ---- starting ----

    private void startOnNewPort() {
        for (int attempt = 1; attempt <= NEW_PORT_ATTEMPTS; attempt++) {
            int candidate = options.clusterBusPort() ? FreePorts.withBusPort() : FreePorts.any();
            int tlsCandidate = options.tls().isPresent() ? FreePorts.otherThan(candidate) : 0;
            ServerLauncher.Result result = launch(candidate, tlsCandidate);
            if (result == ServerLauncher.Result.STARTED) {
                port = candidate;
                tlsPort = tlsCandidate;
                LIVE.add(this);
                LOG.info("Started {} ({}) on port {}, pid {}", version.describe(), binary, port,
                        process.pid());
                return;
            }
            if (result == ServerLauncher.Result.FAILED) {
                break;
            }
        }
        String log = directory.logTail(); // before the directory, and the log with it, is deleted
        directory.delete();
        throw new IllegalStateException(version.describe() + " (" + binary + ") did not start; log:\n" + log);
    }

    /** Launches on these ports; once started, the process is this server's, not paused. */
    private ServerLauncher.Result launch(int candidatePort, int tlsCandidatePort) {
        ServerLauncher.Launch launch = launcher.launch(candidatePort, tlsCandidatePort);
        if (launch.result() == ServerLauncher.Result.STARTED) {
            process = launch.process();
            paused = false;
        }
        return launch.result();
    }

    // ---- state ----

    private void resumeQuietly() {
        if (paused && process != null && process.isAlive()) {
            ProcessControl.signal(process, "CONT");
        }
        paused = false;
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
