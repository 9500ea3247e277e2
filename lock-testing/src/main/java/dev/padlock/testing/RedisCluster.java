package dev.padlock.testing;

import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Redis Cluster of {@code masters × (1 + replicasPerMaster)} {@link RedisServerProcess}es
 * on loopback ports, formed without {@code redis-cli}: the 16384 slots split evenly over the
 * masters in order, each replica following one master.
 *
 * <pre>{@code
 * try (RedisCluster cluster = RedisCluster.start(3, 1)) {
 *     LockConfig config = LockConfig.builder()
 *             .clusterUris(cluster.seedUris().toArray(String[]::new))
 *             .build();
 *     RedisServerProcess owner = cluster.masterForKey("lock:a");
 *     cluster.failover(owner);
 * }
 * }</pre>
 *
 * <p>Implementation notes. Forming follows {@code redis-cli --cluster create}: slots are added
 * to each master ({@code CLUSTER ADDSLOTSRANGE} on Redis 7, {@code ADDSLOTS} in batches on 6.2)
 * and each node gets its own config epoch before any {@code CLUSTER MEET}, so that no epoch
 * collision has to be resolved; then the first node meets the others, and once every node knows
 * every other one the replicas {@code CLUSTER REPLICATE}. The fixture keeps its own model of the
 * shards ({@link ClusterShard}: slot range, master, replicas) and "healthy"
 * ({@link ClusterHealth}) means that every running node says {@code cluster_state:ok}, sees
 * every running node connected and unflagged, and sees this model: each master owning its range
 * and each replica following its master, whose link is up. Failovers update the model first
 * and then wait for that. Nodes are cluster nodes on a port
 * whose bus port (+ 10000) is free ({@link RedisLaunchOptions#withClusterBusPort()}); each keeps
 * its {@code nodes.conf} in its own directory, so a restarted node keeps its ID. Every wait is
 * bounded in time and polls.
 *
 * <p>Thread-safe: every method synchronizes on this object. Not reusable after {@link #close()}.
 */
public final class RedisCluster implements AutoCloseable {

    /** The {@code cluster-node-timeout} unless told otherwise: short, for fast failovers. */
    public static final Duration DEFAULT_NODE_TIMEOUT = Duration.ofMillis(1000);

    /** How many slots a Redis Cluster has. */
    public static final int SLOTS = SlotHash.SLOT_COUNT;

    private static final Logger LOG = LoggerFactory.getLogger(RedisCluster.class);
    private static final Duration FORM_BOUND = Duration.ofSeconds(30);
    private static final Duration FAILOVER_BOUND = Duration.ofSeconds(30);
    /** A manual failover that has not happened by now is asked for again (Redis gives up after 5 s). */
    private static final Duration MANUAL_FAILOVER_RETRY = Duration.ofSeconds(7);
    private static final int MANUAL_FAILOVER_ATTEMPTS = 3;
    private static final int ADDSLOTS_BATCH = 1024;

    private final List<RedisServerProcess> nodes;
    private final Duration nodeTimeout;
    private final NodeConnections connections = new NodeConnections();
    /** Node IDs, fixed for a node's life (kept in its nodes.conf); written during start only. */
    private final Map<RedisServerProcess, String> ids = new HashMap<>();
    private final ClusterHealth health;
    /** Guarded by {@code this}. */
    private final List<ClusterShard> shards = new ArrayList<>();
    /** Slots a {@link SlotMigration} moved, to their master now. Guarded by {@code this}. */
    private final Map<Integer, RedisServerProcess> movedSlots = new HashMap<>();
    /** Guarded by {@code this}. */
    private boolean closed;

    private RedisCluster(List<RedisServerProcess> nodes, Duration nodeTimeout) {
        this.nodes = List.copyOf(nodes);
        this.nodeTimeout = nodeTimeout;
        this.health = new ClusterHealth(this.nodes, ids, connections);
    }

    /** Starts a cluster with {@link #DEFAULT_NODE_TIMEOUT} from {@link RedisBinary#locate()}. */
    public static RedisCluster start(int masters, int replicasPerMaster) {
        return start(masters, replicasPerMaster, DEFAULT_NODE_TIMEOUT);
    }

    /** Starts a cluster with the given {@code cluster-node-timeout} from {@link RedisBinary#locate()}. */
    public static RedisCluster start(int masters, int replicasPerMaster, Duration nodeTimeout) {
        return start(RedisBinary.locate().path(), masters, replicasPerMaster, nodeTimeout);
    }

    /**
     * Starts {@code masters * (1 + replicasPerMaster)} nodes of {@code binary}, forms the cluster
     * and waits (at most 30 s) until it is healthy. When anything fails, whatever was started is
     * stopped again.
     *
     * @param masters at least 1 (Redis needs 3 for a failover without a manual command)
     * @param replicasPerMaster 0 or more
     * @param nodeTimeout the {@code cluster-node-timeout}, at least 100 ms
     * @throws IllegalArgumentException for counts or a timeout out of range
     * @throws IllegalStateException when a node does not start or the cluster does not form in time
     */
    public static RedisCluster start(Path binary, int masters, int replicasPerMaster, Duration nodeTimeout) {
        Objects.requireNonNull(binary, "binary");
        Objects.requireNonNull(nodeTimeout, "nodeTimeout");
        if (masters < 1 || masters > SLOTS) {
            throw new IllegalArgumentException("masters must be in [1, " + SLOTS + "], got " + masters);
        }
        if (replicasPerMaster < 0) {
            throw new IllegalArgumentException("replicasPerMaster must be at least 0, got " + replicasPerMaster);
        }
        if (nodeTimeout.toMillis() < 100) {
            throw new IllegalArgumentException("nodeTimeout must be at least 100 ms, got " + nodeTimeout);
        }
        List<String> args = List.of(
                "--cluster-enabled", "yes",
                "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", String.valueOf(nodeTimeout.toMillis()),
                "--appendonly", "no",
                "--save", "",
                "--repl-diskless-sync-delay", "0");
        List<RedisServerProcess> started = new ArrayList<>();
        RedisCluster cluster = null;
        try {
            int total = masters * (1 + replicasPerMaster);
            for (int i = 0; i < total; i++) {
                started.add(RedisServerProcess.start(binary, args, RedisLaunchOptions.defaults().withClusterBusPort()));
            }
            cluster = new RedisCluster(started, nodeTimeout);
            cluster.form(masters, replicasPerMaster);
            LOG.info("Started a Redis Cluster of {} masters and {} replicas each: {}", masters,
                    replicasPerMaster, cluster.seedUris());
            return cluster;
        } catch (RuntimeException e) {
            if (cluster != null) {
                Cleanup.close(cluster, e);
            } else {
                started.forEach(node -> Cleanup.close(node, e));
            }
            throw e;
        }
    }

    /** The {@code cluster-node-timeout} the nodes run with. */
    public Duration nodeTimeout() {
        return nodeTimeout;
    }

    /** Every node, masters and replicas, in the order they were started (roles change on failover). */
    public List<RedisServerProcess> nodes() {
        return nodes;
    }

    /** The current masters, in slot order (the first owns slot 0). */
    public synchronized List<RedisServerProcess> masters() {
        return shards.stream().map(shard -> shard.master).collect(Collectors.toUnmodifiableList());
    }

    /** The current replicas, master by master in slot order; includes a killed former master. */
    public synchronized List<RedisServerProcess> replicas() {
        return shards.stream().flatMap(shard -> shard.replicas.stream()).collect(Collectors.toUnmodifiableList());
    }

    /** {@code redis://127.0.0.1:<port>} of every current master, e.g. for {@code LockConfig.clusterUris}. */
    public synchronized List<String> seedUris() {
        return masters().stream().map(RedisServerProcess::uri).collect(Collectors.toUnmodifiableList());
    }

    /** The cluster node ID of {@code node}. */
    public String nodeId(RedisServerProcess node) {
        String id = ids.get(Objects.requireNonNull(node, "node"));
        if (id == null) {
            throw new IllegalArgumentException(node + " is not a node of this cluster");
        }
        return id;
    }

    /**
     * The current master of {@code slot}.
     *
     * @throws IllegalArgumentException when the slot is not in [0, 16383]
     */
    public synchronized RedisServerProcess masterForSlot(int slot) {
        if (slot < 0 || slot >= SLOTS) {
            throw new IllegalArgumentException("slot must be in [0, " + (SLOTS - 1) + "], got " + slot);
        }
        RedisServerProcess moved = movedSlots.get(slot);
        if (moved != null) {
            return moved;
        }
        for (ClusterShard shard : shards) {
            if (shard.owns(slot)) {
                return shard.master;
            }
        }
        throw new IllegalStateException("No master for slot " + slot);
    }

    /** The current master of {@code key}'s slot ({@link SlotHash#getSlot(String)}, hash tags honoured). */
    public RedisServerProcess masterForKey(String key) {
        return masterForSlot(SlotHash.getSlot(Objects.requireNonNull(key, "key")));
    }

    /**
     * A hash tag (without its braces) whose slot {@code master} serves now: {@code "{" + tag + "}..."}
     * names a key, or a lock whose keys all go, on that master.
     *
     * @throws IllegalStateException when none of the first 100,000 candidates falls on it
     */
    public String hashTagOn(RedisServerProcess master) {
        for (int i = 0; i < 100_000; i++) {
            if (masterForKey("{t" + i + "}").equals(master)) {
                return "t" + i;
            }
        }
        throw new IllegalStateException("no hash tag of the first 100,000 falls on " + master);
    }

    /**
     * Starts moving {@code slot} to {@code target}, as a resharding does: see {@link SlotMigration}.
     *
     * @throws IllegalArgumentException when {@code target} is not a master, or serves the slot already
     */
    public SlotMigration migrateSlot(int slot, RedisServerProcess target) {
        RedisServerProcess source = masterForSlot(slot);
        if (source.equals(target) || !masters().contains(target)) {
            throw new IllegalArgumentException(target + " is not a master other than the slot's, " + source);
        }
        return SlotMigration.begin(this, slot, source, target);
    }

    /** {@code slot} is served by {@code master} now, after a {@link SlotMigration}. */
    synchronized void slotMoved(int slot, RedisServerProcess master) {
        movedSlots.put(slot, master);
    }

    /**
     * The first replica of {@code master}.
     *
     * @throws IllegalArgumentException when {@code master} is not a current master
     * @throws IllegalStateException when it has no replica
     */
    public synchronized RedisServerProcess replicaOf(RedisServerProcess master) {
        List<RedisServerProcess> replicas = shardOf(master).replicas;
        if (replicas.isEmpty()) {
            throw new IllegalStateException(master + " has no replica");
        }
        return replicas.get(0);
    }

    /** The replicas of {@code master}, possibly none. */
    public synchronized List<RedisServerProcess> replicasOf(RedisServerProcess master) {
        return List.copyOf(shardOf(master).replicas);
    }

    /**
     * A manual failover: {@code CLUSTER FAILOVER} on the first running replica of {@code master},
     * which waits for the replica to catch up first, so no acknowledged write is lost. Waits
     * (at most 30 s; the command is repeated when Redis gave up on it) until the replica is
     * master and the cluster is healthy with the old master as its replica.
     *
     * @return the new master
     * @throws IllegalArgumentException when {@code master} is not a current master
     * @throws IllegalStateException when it has no running replica, or on timeout
     */
    public synchronized RedisServerProcess failover(RedisServerProcess master) {
        requireOpen();
        ClusterShard shard = shardOf(master);
        RedisServerProcess replica = shard.replicas.stream().filter(RedisServerProcess::isRunning).findFirst()
                .orElseThrow(() -> new IllegalStateException(master + " has no running replica"));
        long deadline = System.nanoTime() + FAILOVER_BOUND.toNanos();
        for (int attempt = 1; !"master".equals(health.role(replica)); attempt++) {
            if (attempt > MANUAL_FAILOVER_ATTEMPTS) {
                throw new IllegalStateException("CLUSTER FAILOVER on " + replica + " did not promote it after "
                        + MANUAL_FAILOVER_ATTEMPTS + " attempts; log: " + replica.logFile());
            }
            connections.commands(replica).clusterFailover(false);
            try {
                BoundedWait.until(replica + " to become master", MANUAL_FAILOVER_RETRY,
                        () -> "master".equals(health.role(replica)) ? null : "role is " + health.role(replica));
            } catch (IllegalStateException e) {
                LOG.warn("Manual failover of {} to {} not done yet (attempt {}): {}", master, replica, attempt,
                        e.getMessage());
            }
        }
        shard.promote(replica);
        awaitHealthy(remaining(deadline));
        LOG.info("Manual failover done: {} is master of slots {}", replica, shard.range());
        return replica;
    }

    /**
     * After the test killed (or stopped) {@code killedMaster}: waits until one of its replicas
     * has been promoted and the running nodes are healthy again, the killed node counting as a
     * replica of the new master from now on. A failover takes about 2 to 4 node timeouts.
     *
     * @param bound the most time to wait, e.g. 20 s
     * @return the new master
     * @throws IllegalArgumentException when {@code killedMaster} is not a current master
     * @throws IllegalStateException when it is still running, or on timeout
     */
    public synchronized RedisServerProcess awaitFailoverAfterKill(RedisServerProcess killedMaster, Duration bound) {
        requireOpen();
        Objects.requireNonNull(bound, "bound");
        ClusterShard shard = shardOf(killedMaster);
        if (killedMaster.isRunning()) {
            throw new IllegalStateException(killedMaster + " is still running: kill() or stop() it first");
        }
        long deadline = System.nanoTime() + bound.toNanos();
        RedisServerProcess[] promoted = new RedisServerProcess[1];
        BoundedWait.until("a replica of " + killedMaster + " to be promoted", bound, () -> {
            for (RedisServerProcess replica : shard.replicas) {
                if (replica.isRunning() && "master".equals(health.role(replica))) {
                    promoted[0] = replica;
                    return null;
                }
            }
            return "no running replica of it is master yet";
        });
        shard.promote(promoted[0]);
        awaitHealthy(remaining(deadline));
        LOG.info("Failover after kill done: {} is master of slots {}", promoted[0], shard.range());
        return promoted[0];
    }

    /**
     * Waits until the running nodes are healthy: {@code cluster_state:ok} on each, every running
     * node known, connected and unflagged, each master owning its slots and each running replica
     * following its master with its link up. Use it, for example, after restarting a node.
     *
     * @throws IllegalStateException on timeout
     */
    public synchronized void awaitHealthy(Duration bound) {
        requireOpen();
        BoundedWait.until("a healthy cluster", bound, () -> health.problem(shards));
    }

    /** A new admin connection to {@code node}; the caller closes it. */
    public RedisAdmin admin(RedisServerProcess node) {
        nodeId(node);
        return RedisAdmin.connect(node.uri());
    }

    /** A snapshot of {@code INFO commandstats} of {@code node} (its own INFO calls included). */
    public synchronized CommandStats commandStats(RedisServerProcess node) {
        requireOpen();
        nodeId(node);
        return CommandStats.parse(connections.commands(node).info("commandstats"));
    }

    /** {@code CLUSTER INFO} of {@code node} as field to value, e.g. {@code cluster_state} to {@code ok}. */
    public synchronized Map<String, String> clusterInfo(RedisServerProcess node) {
        requireOpen();
        nodeId(node);
        return InfoFields.parse(connections.commands(node).clusterInfo());
    }

    /** Closes the fixture's connections and stops every node; idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        RuntimeException failure = Cleanup.close(connections, null);
        for (RedisServerProcess node : nodes) {
            failure = Cleanup.close(node, failure);
        }
        Cleanup.rethrow(failure);
    }

    @Override
    public synchronized String toString() {
        return "RedisCluster" + shards.stream()
                .map(shard -> shard.range() + "=" + shard.master.port() + shard.replicas.stream()
                        .map(replica -> String.valueOf(replica.port())).collect(Collectors.joining(",", "[", "]")))
                .collect(Collectors.toList());
    }

    // ---- forming ----

    private synchronized void form(int masters, int replicasPerMaster) {
        for (RedisServerProcess node : nodes) {
            ids.put(node, connections.commands(node).clusterMyId());
        }
        for (int i = 0; i < masters; i++) {
            int from = (int) ((long) SLOTS * i / masters);
            int to = (int) ((long) SLOTS * (i + 1) / masters) - 1;
            RedisServerProcess master = nodes.get(i);
            List<RedisServerProcess> replicas = nodes.subList(masters + i * replicasPerMaster,
                    masters + (i + 1) * replicasPerMaster);
            shards.add(new ClusterShard(from, to, master, replicas));
            addSlots(master, from, to);
        }
        // Distinct epochs before meeting, as redis-cli does: no collisions to resolve later.
        for (int i = 0; i < nodes.size(); i++) {
            connections.commands(nodes.get(i)).clusterSetConfigEpoch(i + 1);
        }
        RedisCommands<String, String> first = connections.commands(nodes.get(0));
        for (RedisServerProcess node : nodes.subList(1, nodes.size())) {
            first.clusterMeet(RedisServerProcess.HOST, node.port());
        }
        BoundedWait.until("every node to know every other one", FORM_BOUND, health::meetProblem);
        for (ClusterShard shard : shards) {
            for (RedisServerProcess replica : shard.replicas) {
                connections.commands(replica).clusterReplicate(ids.get(shard.master));
            }
        }
        awaitHealthy(FORM_BOUND);
    }

    private void addSlots(RedisServerProcess master, int from, int to) {
        RedisCommands<String, String> commands = connections.commands(master);
        if (master.majorVersion() >= 7) {
            commands.dispatch(CommandType.CLUSTER, new StatusOutput<>(StringCodec.UTF8),
                    new CommandArgs<>(StringCodec.UTF8).add("ADDSLOTSRANGE").add(from).add(to));
            return;
        }
        for (int start = from; start <= to; start += ADDSLOTS_BATCH) {
            commands.clusterAddSlots(IntStream.rangeClosed(start, Math.min(to, start + ADDSLOTS_BATCH - 1)).toArray());
        }
    }

    // ---- helpers ----

    private ClusterShard shardOf(RedisServerProcess master) {
        Objects.requireNonNull(master, "master");
        for (ClusterShard shard : shards) {
            if (shard.master == master) {
                return shard;
            }
        }
        throw new IllegalArgumentException(master + " is not a current master of " + this);
    }

    private static Duration remaining(long deadline) {
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("The cluster is closed");
        }
    }
}
