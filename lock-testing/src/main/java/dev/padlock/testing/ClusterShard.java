package dev.padlock.testing;

import java.util.ArrayList;
import java.util.List;

/**
 * {@link RedisCluster}'s model of one shard: a fixed slot range, its current master and
 * replicas. Not thread-safe: the mutable fields are guarded by the owning {@link RedisCluster}.
 */
final class ClusterShard {

    final int from;
    final int to;
    /** Guarded by the owning cluster. */
    RedisServerProcess master;
    /** Guarded by the owning cluster; the promoted or killed nodes move in and out. */
    List<RedisServerProcess> replicas;

    ClusterShard(int from, int to, RedisServerProcess master, List<RedisServerProcess> replicas) {
        this.from = from;
        this.to = to;
        this.master = master;
        this.replicas = new ArrayList<>(replicas);
    }

    /** Whether {@code slot} is in this shard's range. */
    boolean owns(int slot) {
        return slot >= from && slot <= to;
    }

    /** The range as {@code CLUSTER NODES} prints it: {@code from-to}, or one number. */
    String range() {
        return from == to ? String.valueOf(from) : from + "-" + to;
    }

    /** {@code newMaster}, one of the replicas, is master now; the old master is its first replica. */
    void promote(RedisServerProcess newMaster) {
        if (!replicas.contains(newMaster)) {
            throw new IllegalArgumentException(newMaster + " is not a replica of " + master);
        }
        List<RedisServerProcess> followers = new ArrayList<>();
        followers.add(master);
        replicas.stream().filter(node -> node != newMaster).forEach(followers::add);
        master = newMaster;
        replicas = followers;
    }
}
