package dev.padlock.testing;

import io.lettuce.core.RedisCommandExecutionException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Sentinel-managed Redis: a master, one replica and three Sentinels (quorum 2), each a
 * {@link RedisServerProcess} on a loopback port.
 *
 * <pre>{@code
 * try (RedisSentinelSetup setup = RedisSentinelSetup.start()) {
 *     RedisClient client = RedisClient.create(setup.sentinelUri());
 *     ...
 *     setup.failover();            // the replica is master now
 *     setup.master().kill();
 *     setup.awaitFailoverAfterKill(Duration.ofSeconds(20));
 * }
 * }</pre>
 *
 * <p>Implementation notes. The master and the replica start first and the Sentinels only once
 * the replica is in sync, so that the Sentinels' first {@code INFO} of the master already lists
 * the replica (they ask again only every 10 s). Each Sentinel is {@code redis-server
 * sentinel.conf --sentinel} with the file in its own directory, where it rewrites it. Start-up
 * waits until every Sentinel sees the master, the replica (link ok) and the two other Sentinels.
 * A failover waits until every running Sentinel names the new master and the new master says
 * {@code role:master}; it does not wait for the old master to be turned into a replica, which
 * the Sentinels do only 8 to 10 s later ({@link #awaitReplicaInSync(Duration)} waits for that).
 * {@code SENTINEL FAILOVER} answering {@code NOGOODSLAVE} (no replica fit yet) or
 * {@code INPROG} is retried until the bound. Every wait is bounded in time and polls.
 *
 * <p>Thread-safe: every method synchronizes on this object. Not reusable after {@link #close()}.
 */
public final class RedisSentinelSetup implements AutoCloseable {

    /** The name the Sentinels monitor the master under. */
    public static final String MASTER_NAME = "padlock";
    /** The {@code down-after-milliseconds} unless told otherwise. */
    public static final Duration DEFAULT_DOWN_AFTER = Duration.ofMillis(1000);
    /** The {@code failover-timeout} unless told otherwise. */
    public static final Duration DEFAULT_FAILOVER_TIMEOUT = Duration.ofMillis(5000);

    private static final Logger LOG = LoggerFactory.getLogger(RedisSentinelSetup.class);
    private static final int SENTINELS = 3;
    private static final int QUORUM = 2;
    private static final Duration START_BOUND = Duration.ofSeconds(30);
    private static final Duration FAILOVER_BOUND = Duration.ofSeconds(30);
    private static final List<String> DATA_NODE_ARGS = List.of("--repl-diskless-sync-delay", "0");

    /** Filled while starting, fixed afterwards. */
    private final List<RedisServerProcess> sentinels = new ArrayList<>();
    private final NodeConnections connections = new NodeConnections();
    /** Guarded by {@code this}; swapped with {@link #replica} by a failover. */
    private RedisServerProcess master;
    /** Guarded by {@code this}. */
    private RedisServerProcess replica;
    /** Guarded by {@code this}. */
    private boolean closed;

    private RedisSentinelSetup(RedisServerProcess master, RedisServerProcess replica) {
        this.master = master;
        this.replica = replica;
    }

    /** Starts the setup with the default timeouts from {@link RedisBinary#locate()}. */
    public static RedisSentinelSetup start() {
        return start(RedisBinary.locate().path(), DEFAULT_DOWN_AFTER, DEFAULT_FAILOVER_TIMEOUT);
    }

    /**
     * Starts a master, its replica and three Sentinels of {@code binary} and waits (at most 30 s)
     * until they all see each other. When anything fails, whatever was started is stopped again.
     *
     * @param downAfter the Sentinels' {@code down-after-milliseconds}, at least 100 ms
     * @param failoverTimeout the Sentinels' {@code failover-timeout}, at least 1 s
     * @throws IllegalArgumentException for timeouts out of range
     * @throws IllegalStateException when a server does not start or the setup does not settle in time
     */
    public static RedisSentinelSetup start(Path binary, Duration downAfter, Duration failoverTimeout) {
        Objects.requireNonNull(binary, "binary");
        Objects.requireNonNull(downAfter, "downAfter");
        Objects.requireNonNull(failoverTimeout, "failoverTimeout");
        if (downAfter.toMillis() < 100) {
            throw new IllegalArgumentException("downAfter must be at least 100 ms, got " + downAfter);
        }
        if (failoverTimeout.toMillis() < 1000) {
            throw new IllegalArgumentException("failoverTimeout must be at least 1 s, got " + failoverTimeout);
        }
        RedisServerProcess master = RedisServerProcess.start(binary, DATA_NODE_ARGS);
        RedisSentinelSetup setup = null;
        try {
            List<String> replicaArgs = new ArrayList<>(DATA_NODE_ARGS);
            replicaArgs.addAll(List.of("--replicaof", RedisServerProcess.HOST, String.valueOf(master.port())));
            setup = new RedisSentinelSetup(master, RedisServerProcess.start(binary, replicaArgs));
            setup.awaitReplicaInSync(START_BOUND);
            String config = sentinelConfig(master.port(), downAfter, failoverTimeout);
            for (int i = 0; i < SENTINELS; i++) {
                setup.sentinels.add(RedisServerProcess.start(binary, List.of("--sentinel"),
                        RedisLaunchOptions.defaults().withConfigFile("sentinel.conf", config)));
            }
            setup.awaitSettled(START_BOUND);
            LOG.info("Started a Redis Sentinel setup {}: master {}, replica {}", setup.sentinelUri(), master.port(),
                    setup.replica.port());
            return setup;
        } catch (RuntimeException e) {
            Cleanup.close(setup != null ? setup : master, e);
            throw e;
        }
    }

    /** The name the Sentinels know the master by. */
    public String masterName() {
        return MASTER_NAME;
    }

    /**
     * The URI Lettuce connects through: {@code redis-sentinel://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3#padlock}.
     */
    public String sentinelUri() {
        return sentinels.stream()
                .map(sentinel -> RedisServerProcess.HOST + ":" + sentinel.port())
                .collect(Collectors.joining(",", "redis-sentinel://", "#" + MASTER_NAME));
    }

    /** The current master (after a failover, the former replica). */
    public synchronized RedisServerProcess master() {
        return master;
    }

    /** The current replica (after a failover, the former master, possibly killed). */
    public synchronized RedisServerProcess replica() {
        return replica;
    }

    /** The three Sentinels. */
    public List<RedisServerProcess> sentinels() {
        return List.copyOf(sentinels);
    }

    /**
     * {@code SENTINEL FAILOVER} on the first running Sentinel (repeated while it answers
     * {@code NOGOODSLAVE} or {@code INPROG}), then waits until every running Sentinel names the
     * replica as master and the replica says {@code role:master}; at most 30 s in all. About 1
     * to 3 s when the replica is in sync.
     *
     * @return the new master
     * @throws IllegalStateException when the replica is not running, no Sentinel runs, or on timeout
     */
    public synchronized RedisServerProcess failover() {
        requireOpen();
        RedisServerProcess candidate = replica;
        if (!candidate.isRunning()) {
            throw new IllegalStateException("The replica " + candidate + " is not running");
        }
        RedisServerProcess sentinel = sentinels.stream().filter(RedisServerProcess::isRunning).findFirst()
                .orElseThrow(() -> new IllegalStateException("No Sentinel is running"));
        long deadline = System.nanoTime() + FAILOVER_BOUND.toNanos();
        BoundedWait.until("SENTINEL FAILOVER to be accepted", FAILOVER_BOUND, () -> {
            // Checked first, so that a retry after a lost reply never starts a second failover.
            Map<String, String> state = connections.sentinel(sentinel).master(MASTER_NAME);
            if (state.getOrDefault("flags", "").contains("failover_in_progress")
                    || String.valueOf(candidate.port()).equals(state.get("port"))) {
                return null;
            }
            try {
                connections.sentinel(sentinel).failover(MASTER_NAME);
                return null;
            } catch (RedisCommandExecutionException e) {
                if (e.getMessage().startsWith("NOGOODSLAVE") || e.getMessage().startsWith("INPROG")) {
                    return e.getMessage();
                }
                throw e;
            }
        });
        awaitMaster(candidate, remaining(deadline));
        LOG.info("Sentinel failover done: {} is master", candidate);
        return candidate;
    }

    /**
     * After the test killed (or stopped) {@link #master()}: waits until the Sentinels have
     * promoted the replica, i.e. every running Sentinel names it and it says
     * {@code role:master}. About 3 to 6 s with the default timeouts.
     *
     * @return the new master
     * @throws IllegalStateException when the master is still running, or on timeout
     */
    public synchronized RedisServerProcess awaitFailoverAfterKill(Duration bound) {
        requireOpen();
        Objects.requireNonNull(bound, "bound");
        if (master.isRunning()) {
            throw new IllegalStateException("The master " + master + " is still running: kill() or stop() it first");
        }
        RedisServerProcess candidate = replica;
        awaitMaster(candidate, bound);
        LOG.info("Failover after kill done: {} is master", candidate);
        return candidate;
    }

    /**
     * Waits until {@link #replica()} runs, follows {@link #master()} and has its link up, e.g.
     * after a failover (the Sentinels turn the old master into a replica 8 to 10 s later) or
     * after restarting the killed old master.
     *
     * @throws IllegalStateException on timeout
     */
    public synchronized void awaitReplicaInSync(Duration bound) {
        requireOpen();
        BoundedWait.until(replica + " to replicate " + master, bound, () -> {
            Map<String, String> replication = InfoFields.parse(connections.commands(replica).info("replication"));
            boolean follows = "slave".equals(replication.get("role"))
                    && String.valueOf(master.port()).equals(replication.get("master_port"))
                    && "up".equals(replication.get("master_link_status"));
            return follows ? null : "replication is " + replication;
        });
    }

    /** A new admin connection to the master, the replica or a Sentinel; the caller closes it. */
    public RedisAdmin admin(RedisServerProcess node) {
        Objects.requireNonNull(node, "node");
        return RedisAdmin.connect(node.uri());
    }

    /** A snapshot of {@code INFO commandstats} of {@code node} (its own INFO calls included). */
    public synchronized CommandStats commandStats(RedisServerProcess node) {
        requireOpen();
        return CommandStats.parse(connections.commands(Objects.requireNonNull(node, "node")).info("commandstats"));
    }

    /** Closes the fixture's connections and stops the Sentinels, then the data nodes; idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        RuntimeException failure = Cleanup.close(connections, null);
        for (RedisServerProcess node : sentinels) {
            failure = Cleanup.close(node, failure);
        }
        failure = Cleanup.close(replica, failure);
        failure = Cleanup.close(master, failure);
        Cleanup.rethrow(failure);
    }

    @Override
    public String toString() {
        return "RedisSentinelSetup " + sentinelUri();
    }

    // ---- waiting ----

    private void awaitSettled(Duration bound) {
        BoundedWait.until("every Sentinel to see the master, the replica and the other Sentinels", bound, () -> {
            for (RedisServerProcess sentinel : sentinels) {
                Map<String, String> state = connections.sentinel(sentinel).master(MASTER_NAME);
                if (!String.valueOf(master.port()).equals(state.get("port")) || !"master".equals(state.get("flags"))
                        || !String.valueOf(SENTINELS - 1).equals(state.get("num-other-sentinels"))) {
                    return "Sentinel " + sentinel.port() + " sees " + state;
                }
                boolean replicaOk = connections.sentinel(sentinel).replicas(MASTER_NAME).stream()
                        .anyMatch(entry -> String.valueOf(replica.port()).equals(entry.get("port"))
                                && "slave".equals(entry.get("flags"))
                                && "ok".equals(entry.get("master-link-status")));
                if (!replicaOk) {
                    return "Sentinel " + sentinel.port() + " sees replicas "
                            + connections.sentinel(sentinel).replicas(MASTER_NAME);
                }
            }
            return null;
        });
    }

    /** Waits until every running Sentinel names {@code candidate} and it is master; then swaps the roles. */
    private void awaitMaster(RedisServerProcess candidate, Duration bound) {
        BoundedWait.until(candidate + " to be master for every Sentinel", bound, () -> {
            for (RedisServerProcess sentinel : sentinels) {
                if (!sentinel.isRunning()) {
                    continue;
                }
                SocketAddress address = connections.sentinel(sentinel).getMasterAddrByName(MASTER_NAME);
                if (!(address instanceof InetSocketAddress)
                        || ((InetSocketAddress) address).getPort() != candidate.port()) {
                    return "Sentinel " + sentinel.port() + " names " + address;
                }
            }
            String role = InfoFields.parse(connections.commands(candidate).info("replication")).get("role");
            return "master".equals(role) ? null : candidate.port() + " has role " + role;
        });
        replica = master;
        master = candidate;
    }

    // ---- helpers ----

    private static String sentinelConfig(int masterPort, Duration downAfter, Duration failoverTimeout) {
        return String.join("\n",
                "sentinel monitor " + MASTER_NAME + " " + RedisServerProcess.HOST + " " + masterPort + " " + QUORUM,
                "sentinel down-after-milliseconds " + MASTER_NAME + " " + downAfter.toMillis(),
                "sentinel failover-timeout " + MASTER_NAME + " " + failoverTimeout.toMillis(),
                "sentinel parallel-syncs " + MASTER_NAME + " 1",
                "");
    }

    private static Duration remaining(long deadline) {
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("The Sentinel setup is closed");
        }
    }
}
