package dev.padlock.testing;

import io.lettuce.core.MigrateArgs;
import io.lettuce.core.cluster.SlotHash;
import java.util.Arrays;
import java.util.List;

/**
 * A slot of a {@link RedisCluster} in mid-migration, as {@code redis-cli --cluster reshard} leaves
 * it between its steps: the target {@code IMPORTING}, the source {@code MIGRATING}. Meanwhile a
 * command whose keys are not all on the node it reaches gets {@code ASK} (none there) or
 * {@code TRYAGAIN} (some there, or several keys on the importing node with some missing).
 * {@link #moveKeys} moves the slot's keys ({@code MIGRATE}, TTLs kept); {@link #finish} moves the
 * rest and gives the slot to the target on every master, and the fixture's
 * {@link RedisCluster#masterForSlot} follows.
 */
public final class SlotMigration {
    private final RedisCluster cluster;
    private final int slot;
    private final RedisServerProcess source;
    private final RedisServerProcess target;

    private SlotMigration(RedisCluster cluster, int slot, RedisServerProcess source, RedisServerProcess target) {
        this.cluster = cluster;
        this.slot = slot;
        this.source = source;
        this.target = target;
    }

    static SlotMigration begin(RedisCluster cluster, int slot, RedisServerProcess source, RedisServerProcess target) {
        try (RedisAdmin from = cluster.admin(source); RedisAdmin to = cluster.admin(target)) {
            to.commands().clusterSetSlotImporting(slot, cluster.nodeId(source));
            from.commands().clusterSetSlotMigrating(slot, cluster.nodeId(target));
        }
        return new SlotMigration(cluster, slot, source, target);
    }

    /** The master the slot leaves. */
    public RedisServerProcess source() {
        return source;
    }

    /** The master the slot goes to. */
    public RedisServerProcess target() {
        return target;
    }

    /** Moves the keys of the slot that are on the source now to the target; returns them. */
    public List<String> moveKeys() {
        try (RedisAdmin from = cluster.admin(source)) {
            List<String> keys = from.commands().clusterGetKeysInSlot(slot, 10_000);
            migrate(from, keys);
            return keys;
        }
    }

    /**
     * Moves {@code keys}, those of them on the source, to the target: the others stay, so a
     * command over all of them meets {@code TRYAGAIN}.
     *
     * @throws IllegalArgumentException when a key is not in the slot
     */
    public void moveKeys(String... keys) {
        for (String key : keys) {
            if (SlotHash.getSlot(key) != slot) {
                throw new IllegalArgumentException(key + " is not in slot " + slot);
            }
        }
        try (RedisAdmin from = cluster.admin(source)) {
            migrate(from, Arrays.stream(keys).filter(key -> from.commands().exists(key) == 1).toList());
        }
    }

    private void migrate(RedisAdmin from, List<String> keys) {
        if (!keys.isEmpty()) {
            from.commands().migrate(RedisServerProcess.HOST, target.port(), 0, 5_000, MigrateArgs.Builder.keys(keys));
        }
    }

    /** Moves the keys still on the source, then gives the slot to the target: the target first, then every other master. */
    public void finish() {
        moveKeys();
        String targetId = cluster.nodeId(target);
        try (RedisAdmin to = cluster.admin(target)) {
            to.commands().clusterSetSlotNode(slot, targetId);
        }
        for (RedisServerProcess other : cluster.masters()) {
            if (!other.equals(target)) {
                try (RedisAdmin admin = cluster.admin(other)) {
                    admin.commands().clusterSetSlotNode(slot, targetId);
                }
            }
        }
        cluster.slotMoved(slot, target);
    }

    @Override
    public String toString() {
        return "slot " + slot + " from " + source.port() + " to " + target.port();
    }
}
