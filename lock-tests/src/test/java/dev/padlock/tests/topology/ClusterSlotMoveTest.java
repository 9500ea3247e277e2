package dev.padlock.tests.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RLock;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisCluster;
import dev.padlock.testing.RedisServerProcess;
import dev.padlock.tests.support.Clients;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A lock's slot moves to another master (a resharding) while a waiter of another client is
 * parked on it: on Redis 7 the waiter's sharded subscription follows the slot, on 6.2 (no sharded
 * pub/sub) its classic subscription stays where it is and the unlock's {@code PUBLISH} reaches it
 * through the Cluster's bus; either way the holder's unlock still wakes it, long before the lease
 * would have. It says which pub/sub it checked.
 */
class ClusterSlotMoveTest {
    private static final long LEASE_SECONDS = 20;

    private RedisCluster cluster;
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @BeforeEach
    void start() {
        cluster = RedisCluster.start(3, 0);
    }

    @AfterEach
    void stop() {
        pool.shutdownNow();
        cluster.close();
    }

    @Test
    void aParkedWaiterFollowsItsLockToTheNewMaster() throws Exception {
        String[] seeds = cluster.seedUris().toArray(String[]::new);
        String name = Clients.uniqueName("slot-move");
        RedisServerProcess source = cluster.masterForKey(name);
        RedisServerProcess target = cluster.masters().stream().filter(m -> !m.equals(source)).findFirst().orElseThrow();
        try (LockClient holderClient = LockClient.create(LockConfig.builder().clusterUris(seeds).build());
                LockClient waiterClient = LockClient.create(LockConfig.builder().clusterUris(seeds).build())) {
            RLock holder = holderClient.getLock(name);
            RLock waiter = waiterClient.getLock(name);
            holder.lock(LEASE_SECONDS, TimeUnit.SECONDS);
            CompletableFuture<Long> acquiredAt = CompletableFuture.supplyAsync(() -> {
                try {
                    assertThat(waiter.tryLock(LEASE_SECONDS + 10, 10, TimeUnit.SECONDS)).isTrue();
                    long at = System.nanoTime();
                    waiter.unlock();
                    return at;
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }, pool);
            // the waiter waits, subscribed: sharded on the source master (Redis 7), classic on a node of its
            // pub/sub connection's choosing (6.2)
            String channel = "redisson_lock__channel:{" + name + "}";
            await("the waiter subscribed").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10))
                    .until(() -> subscribers(source, channel) >= 1);

            cluster.migrateSlot(SlotHash.getSlot(name), target).finish();
            try (RedisAdmin admin = cluster.admin(target)) {
                assertThat(admin.commands().exists(name)).as("the lock moved with its slot").isEqualTo(1L);
            }

            long unlockedAt = System.nanoTime();
            holder.unlock(); // MOVED to the target, which publishes there
            long millis = TimeUnit.NANOSECONDS.toMillis(acquiredAt.get(LEASE_SECONDS + 20, TimeUnit.SECONDS) - unlockedAt);
            String checked = source.serverVersion() + ": "
                    + (source.majorVersion() >= 7 ? "sharded pub/sub checked" : "classic pub/sub checked");
            System.out.printf("%s; after the slot moved, the waiter got the lock %d ms after the unlock (lease %d s)%n",
                    checked, millis, LEASE_SECONDS);
            assertThat(millis).as(checked + ": woken by the unlock, not by the lease").isLessThan(10_000);
        }
    }

    /** Subscribers of {@code channel}: sharded ones on {@code source} (Redis 7), classic ones on any master. */
    private long subscribers(RedisServerProcess source, String channel) {
        if (source.majorVersion() >= 7) {
            try (RedisAdmin admin = cluster.admin(source)) {
                return admin.commands().pubsubShardNumsub(channel).getOrDefault(channel, 0L);
            }
        }
        long count = 0;
        for (RedisServerProcess master : cluster.masters()) {
            try (RedisAdmin admin = cluster.admin(master)) {
                count += admin.commands().pubsubNumsub(channel).getOrDefault(channel, 0L);
            }
        }
        return count;
    }
}
