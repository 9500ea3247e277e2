package dev.padlock.tests.faults;

import dev.padlock.LockConfig;
import dev.padlock.tests.support.Clients;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisCluster;
import dev.padlock.testing.RedisServerProcess;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A Cluster master failover (the master killed) while a lock is held and threads wait on it. */
@Tag("faults")
class ClusterFailoverTest {
    private RedisCluster cluster;

    @BeforeEach
    void start() {
        cluster = RedisCluster.start(3, 1);
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void anAcknowledgedLockSurvivesTheFailoverAndWaitersResume() throws Exception {
        RedisServerProcess victim = cluster.masters().get(1);
        String name = nameOn(victim, "cluster-failover");
        String[] seeds = cluster.seedUris().toArray(String[]::new);
        try (FailoverScenario scenario = new FailoverScenario(LockConfig.builder().clusterUris(seeds),
                LockConfig.builder().clusterUris(seeds), name)) {
            long start = System.nanoTime();
            victim.kill();
            RedisServerProcess promoted = cluster.awaitFailoverAfterKill(victim, Duration.ofSeconds(30));
            System.out.printf("cluster failover took %d ms%n", (System.nanoTime() - start) / 1_000_000);
            try (RedisAdmin admin = cluster.admin(promoted)) {
                scenario.checkRecovery(() -> admin.commands().hexists(name, scenario.field),
                        nameOn(promoted, "cluster-after"));
            }
        }
    }

    private String nameOn(RedisServerProcess master, String prefix) {
        for (int i = 0; i < 100_000; i++) {
            String name = Clients.uniqueName(prefix);
            if (cluster.masterForKey(name).equals(master)) {
                return name;
            }
        }
        throw new IllegalStateException("no name found for " + master);
    }
}
