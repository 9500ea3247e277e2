package dev.padlock.tests.topology;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RLock;
import dev.padlock.tests.support.Clients;
import dev.padlock.tests.support.Contention;
import dev.padlock.tests.support.CounterWorker;
import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.testing.CommandStats;
import dev.padlock.testing.RedisCluster;
import dev.padlock.testing.RedisServerProcess;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The core lock checks on a 3-master Redis Cluster, with locks spread over every master. */
class ClusterLocksTest extends TopologyLockSuite {
    private static RedisCluster cluster;
    private static RedisClusterClient dataClient;
    private static StatefulRedisClusterConnection<String, String> data;

    @BeforeAll
    static void start() {
        cluster = RedisCluster.start(3, 0);
        dataClient = RedisClusterClient.create(cluster.seedUris().stream().map(RedisURI::create).toList());
        data = dataClient.connect();
    }

    @AfterAll
    static void stop() {
        if (dataClient != null) {
            dataClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    LockConfig.Builder topology() {
        return LockConfig.builder().clusterUris(cluster.seedUris().toArray(String[]::new));
    }

    @Override
    String workerTopology() {
        return CounterWorker.CLUSTER_PREFIX + String.join(",", cluster.seedUris());
    }

    @Override
    RedisClusterCommands<String, String> data() {
        return data.sync();
    }

    /** Names taken in turn from each master's slots, so every master holds some. */
    @Override
    List<String> names(String prefix, int count) {
        List<RedisServerProcess> masters = cluster.masters();
        Map<RedisServerProcess, List<String>> byMaster = new HashMap<>();
        int attempts = 0;
        while (byMaster.values().stream().mapToInt(List::size).sum() < count && attempts++ < 100_000) {
            String name = Clients.uniqueName("cluster-" + prefix);
            RedisServerProcess master = cluster.masterForKey(name);
            int wanted = count / masters.size() + (masters.indexOf(master) < count % masters.size() ? 1 : 0);
            List<String> taken = byMaster.computeIfAbsent(master, m -> new ArrayList<>());
            if (taken.size() < wanted) {
                taken.add(name);
            }
        }
        List<String> names = new ArrayList<>();
        for (int i = 0; names.size() < count; i++) {
            for (RedisServerProcess master : masters) {
                List<String> taken = byMaster.getOrDefault(master, List.of());
                if (i < taken.size() && names.size() < count) {
                    names.add(taken.get(i));
                }
            }
        }
        return names;
    }

    @Test
    void namesCoverEveryMaster() {
        Set<RedisServerProcess> masters = names("spread", 6).stream().map(cluster::masterForKey).collect(Collectors.toSet());
        assertThat(masters).containsExactlyInAnyOrderElementsOf(cluster.masters());
    }

    /**
     * Contention on a Cluster uses the pub/sub its servers have: sharded ({@code SSUBSCRIBE},
     * {@code SPUBLISH}) and no classic pub/sub on Redis 7; classic ({@code SUBSCRIBE},
     * {@code PUBLISH}) on Redis 6.2, which has no sharded pub/sub (the embedded binary that serves
     * when no {@code redis-server} is on the {@code PATH}). It says which one it checked.
     */
    @Test
    void contentionUsesShardedPubSubOnRedis7AndClassicPubSubOn62() throws Exception {
        RedisServerProcess first = cluster.masters().get(0);
        boolean sharded = first.majorVersion() >= 7;
        String checked = first.serverVersion() + ": "
                + (sharded ? "sharded pub/sub (SSUBSCRIBE/SPUBLISH) checked" : "classic pub/sub (SUBSCRIBE/PUBLISH) checked");
        Map<RedisServerProcess, CommandStats> before = new HashMap<>();
        for (RedisServerProcess node : cluster.masters()) {
            before.put(node, cluster.commandStats(node));
        }
        LockClient one = open(b -> b);
        LockClient two = open(b -> b);
        List<String> names = names("pubsub", 3);
        Set<String> contended = new HashSet<>(names);
        Contention.run(Executors.newFixedThreadPool(6), 6, task -> {
            LockClient client = task % 2 == 0 ? one : two;
            for (int i = 0; i < 20; i++) {
                for (String name : contended) {
                    RLock lock = client.getLock(name);
                    lock.lock();
                    lock.unlock();
                }
            }
        });
        long publish = 0;
        long subscribe = 0;
        long spublish = 0;
        long ssubscribe = 0;
        for (RedisServerProcess node : cluster.masters()) {
            CommandStats used = CommandStats.delta(before.get(node), cluster.commandStats(node));
            publish += used.calls("publish");
            subscribe += used.calls("subscribe") + used.calls("psubscribe");
            spublish += used.calls("spublish");
            ssubscribe += used.calls("ssubscribe");
        }
        System.out.printf("%s; cluster contention: spublish %d, ssubscribe %d, publish %d, subscribe %d%n",
                checked, spublish, ssubscribe, publish, subscribe);
        if (sharded) {
            assertThat(publish).as(checked + ": no classic PUBLISH").isZero();
            assertThat(subscribe).as(checked + ": no classic SUBSCRIBE").isZero();
            assertThat(spublish).as(checked + ": unlocks published sharded").isPositive();
            assertThat(ssubscribe).as(checked + ": waiters subscribed sharded").isPositive();
        } else {
            assertThat(spublish).as(checked + ": no SPUBLISH before Redis 7").isZero();
            assertThat(ssubscribe).as(checked + ": no SSUBSCRIBE before Redis 7").isZero();
            assertThat(publish).as(checked + ": unlocks published classic").isPositive();
            assertThat(subscribe).as(checked + ": waiters subscribed classic").isPositive();
        }
    }
}
