package dev.padlock.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class RedisClusterTest {

    @BeforeAll
    static void needsABinary() {
        assumeTrue(RedisBinary.onPath().isPresent() || RedisBinary.embedded().isPresent(),
                "no redis-server binary: none on the PATH and none in the embedded-redis jar");
    }

    @Test
    void threeMastersCoverEverySlotAndServeAClusterClient() {
        try (RedisCluster cluster = RedisCluster.start(3, 0)) {
            assertFormed(cluster, 3);
            assertEquals(List.of(), cluster.replicas());

            String key = "padlock:cluster:key";
            withClusterClient(cluster, commands -> {
                commands.sync().set(key, "v1");
                assertEquals("v1", commands.sync().get(key));
            });
            try (RedisAdmin owner = cluster.admin(cluster.masterForKey(key))) {
                assertEquals("v1", owner.commands().get(key), "the key lives on masterForKey");
                assertEquals(SlotHash.getSlot(key), owner.commands().clusterKeyslot(key).intValue());
            }
            assertTrue(cluster.commandStats(cluster.masterForKey(key)).calls("set") >= 1);
        }
    }

    @Test
    void manualFailoverPromotesTheReplicaAndKeepsTheData() {
        try (RedisCluster cluster = RedisCluster.start(3, 1)) {
            assertFormed(cluster, 6);
            String key = "padlock:cluster:failover";
            RedisServerProcess oldMaster = cluster.masterForKey(key);
            RedisServerProcess replica = cluster.replicaOf(oldMaster);
            withClusterClient(cluster, commands -> commands.sync().set(key, "before"));

            RedisServerProcess newMaster = cluster.failover(oldMaster);

            assertSame(replica, newMaster);
            assertSame(newMaster, cluster.masterForKey(key));
            assertSame(oldMaster, cluster.replicaOf(newMaster));
            assertTrue(cluster.seedUris().contains(newMaster.uri()));
            assertTrue(cluster.replicas().contains(oldMaster));
            try (RedisAdmin admin = cluster.admin(newMaster)) {
                assertEquals("master", admin.infoField("replication", "role"));
                assertEquals("before", admin.commands().get(key), "written before the failover");
            }
            try (RedisAdmin admin = cluster.admin(oldMaster)) {
                assertEquals("slave", admin.infoField("replication", "role"));
            }
            withClusterClient(cluster, commands -> {
                assertEquals("before", commands.sync().get(key));
                commands.sync().set(key, "after");
                assertEquals("after", commands.sync().get(key));
            });
        }
    }

    @Test
    void killedMasterIsReplacedByItsReplica() {
        try (RedisCluster cluster = RedisCluster.start(3, 1)) {
            RedisServerProcess killed = cluster.masters().get(1);
            RedisServerProcess replica = cluster.replicaOf(killed);
            killed.kill();

            long started = System.nanoTime();
            RedisServerProcess promoted = cluster.awaitFailoverAfterKill(killed, Duration.ofSeconds(20));
            System.out.println("Cluster failover after kill took "
                    + Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms");

            assertSame(replica, promoted);
            assertSame(promoted, cluster.masters().get(1));
            for (RedisServerProcess node : cluster.nodes()) {
                if (node.isRunning()) {
                    assertEquals("ok", cluster.clusterInfo(node).get("cluster_state"));
                }
            }
            withClusterClient(cluster, commands -> {
                commands.sync().set("{k}", "v");
                assertEquals("v", commands.sync().get("{k}"));
            });

            killed.restart();
            cluster.awaitHealthy(Duration.ofSeconds(20));
            try (RedisAdmin admin = cluster.admin(killed)) {
                assertEquals("slave", admin.infoField("replication", "role"), "the restarted node rejoins as replica");
            }
        }
    }

    @Test
    void formsOnRedis62WithAddSlotsInBatches() {
        Optional<RedisBinary> embedded = RedisBinary.embedded();
        assumeTrue(embedded.isPresent(), "the embedded-redis jar has no binary for this platform");
        Path binary = embedded.get().path();
        try (RedisCluster cluster = RedisCluster.start(binary, 3, 1, Duration.ofMillis(1000))) {
            assertTrue(cluster.masters().get(0).version().startsWith("6."), cluster.masters().get(0).version());
            assertFormed(cluster, 6);
            withClusterClient(cluster, commands -> {
                commands.sync().set("padlock:62", "v");
                assertEquals("v", commands.sync().get("padlock:62"));
            });
        }
    }

    private static void assertFormed(RedisCluster cluster, int nodes) {
        assertEquals(nodes, cluster.nodes().size());
        for (RedisServerProcess node : cluster.nodes()) {
            assertTrue(node.port() + RedisLaunchOptions.CLUSTER_BUS_OFFSET <= 65_535, "bus port of " + node);
            assertNotEquals(6379, node.port());
        }
        for (RedisServerProcess node : cluster.nodes()) {
            Map<String, String> info = cluster.clusterInfo(node);
            assertEquals("ok", info.get("cluster_state"), () -> node + ": " + info);
            assertEquals("16384", info.get("cluster_slots_assigned"));
            assertEquals("16384", info.get("cluster_slots_ok"));
            assertEquals(String.valueOf(nodes), info.get("cluster_known_nodes"));
        }
        Set<RedisServerProcess> owners = new HashSet<>();
        for (int slot = 0; slot < RedisCluster.SLOTS; slot++) {
            owners.add(cluster.masterForSlot(slot));
        }
        assertEquals(Set.copyOf(cluster.masters()), owners, "every master owns slots, and only masters do");
        assertEquals(cluster.masters().stream().map(RedisServerProcess::uri).collect(Collectors.toList()),
                cluster.seedUris());
        for (RedisServerProcess master : cluster.masters()) {
            for (RedisServerProcess replica : cluster.replicasOf(master)) {
                assertNotEquals(master, replica);
                try (RedisAdmin admin = cluster.admin(replica)) {
                    assertEquals("up", admin.infoField("replication", "master_link_status"));
                    assertEquals(String.valueOf(master.port()), admin.infoField("replication", "master_port"));
                }
            }
        }
    }

    private interface ClusterWork {
        void run(StatefulRedisClusterConnection<String, String> connection);
    }

    private static void withClusterClient(RedisCluster cluster, ClusterWork work) {
        List<RedisURI> seeds = cluster.seedUris().stream().map(RedisURI::create).collect(Collectors.toList());
        RedisClusterClient client = RedisClusterClient.create(seeds);
        try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
            work.run(connection);
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }
}
