package dev.padlock.tests.topology;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RLock;
import dev.padlock.tests.support.Clients;
import dev.padlock.tests.support.Contention;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.padlock.spi.LockKeys;
import dev.padlock.testing.CommandStats;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisBinary;
import dev.padlock.testing.RedisCluster;
import dev.padlock.testing.RedisServerProcess;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** On a Redis 6.2 Cluster, which has no sharded pub/sub, waiters use classic pub/sub; the fair lock too. */
class ClusterOnRedis62Test {

    @Test
    void contentionUsesClassicPubSubAndStaysExact() throws Exception {
        Optional<RedisBinary> embedded = RedisBinary.embedded();
        assumeTrue(embedded.isPresent(), "the embedded-redis jar has no binary for this platform");
        try (RedisCluster cluster = RedisCluster.start(embedded.get().path(), 3, 0, RedisCluster.DEFAULT_NODE_TIMEOUT)) {
            assumeTrue(cluster.masters().get(0).version().startsWith("6."), "the embedded binary is not 6.x");
            Map<RedisServerProcess, CommandStats> before = new HashMap<>();
            for (RedisServerProcess node : cluster.masters()) {
                before.put(node, cluster.commandStats(node));
            }
            String[] seeds = cluster.seedUris().toArray(String[]::new);
            String name = Clients.uniqueName("cluster62");
            // one count a lock: a plain holder and a fair holder rightly hold at once
            AtomicInteger[] inside = {new AtomicInteger(), new AtomicInteger()};
            AtomicInteger overlaps = new AtomicInteger();
            try (LockClient one = LockClient.create(LockConfig.builder().clusterUris(seeds).commandTimeout(Duration.ofSeconds(3)).build());
                    LockClient two = LockClient.create(LockConfig.builder().clusterUris(seeds).commandTimeout(Duration.ofSeconds(3)).build())) {
                // the plain lock, then the fair lock, whose grant messages only wake here (a classic PUBLISH
                // on a 6.2 Cluster cannot count who heard it): the grantee's next attempt finds the grant
                Contention.run(Executors.newFixedThreadPool(8), 8, task -> {
                    boolean fair = task >= 4;
                    LockClient client = task % 2 == 0 ? one : two;
                    RLock lock = fair ? client.getFairLock(name + ":fair") : client.getLock(name);
                    AtomicInteger holders = inside[fair ? 1 : 0];
                    for (int i = 0; i < 30; i++) {
                        lock.lock();
                        try {
                            if (holders.incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            Thread.yield();
                            holders.decrementAndGet();
                        } finally {
                            lock.unlock();
                        }
                    }
                });
            }
            long publish = 0;
            long spublish = 0;
            for (RedisServerProcess node : cluster.masters()) {
                CommandStats used = CommandStats.delta(before.get(node), cluster.commandStats(node));
                publish += used.calls("publish");
                spublish += used.calls("spublish");
            }
            assertThat(overlaps).hasValue(0);
            assertThat(publish).as("classic PUBLISH on 6.2").isPositive();
            assertThat(spublish).isZero();
            try (RedisAdmin admin = cluster.admin(cluster.masterForKey(name))) {
                assertThat(admin.commands().exists(name)).isZero();
            }
            String fair = name + ":fair";
            try (RedisAdmin admin = cluster.admin(cluster.masterForKey(fair))) {
                assertThat(admin.commands().exists(fair, LockKeys.fairQueue(fair))).as("fair lock and line gone").isZero();
            }
        }
    }
}
