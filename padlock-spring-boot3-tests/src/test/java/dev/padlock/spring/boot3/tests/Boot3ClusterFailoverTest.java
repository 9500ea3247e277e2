package dev.padlock.spring.boot3.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisCluster;
import dev.padlock.testing.RedisServerProcess;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * A Cluster master killed while the starter's client holds a lock on it, on Boot 3.5's own Lettuce
 * 6 (a fault test: tier 3). Lettuce 6 leaves the adaptive topology refresh triggers off, which
 * Lettuce 7 turns on by default: without asking for them, the client kept reconnecting to the dead
 * master until the lease ran out. With them, the holder keeps its lock on the promoted master and
 * unlocks it there. (The client asks one replica to acknowledge, so that the lock is on the replica
 * before the kill; the promoted master has no replica left, so no new lock is taken.)
 */
@Tag("faults")
class Boot3ClusterFailoverTest {
    /** Generous: only catches a client that never finds the new master. */
    private static final Duration RECOVERY = Duration.ofSeconds(40);
    private RedisCluster cluster;

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class Application {
    }

    @BeforeEach
    void start() {
        cluster = RedisCluster.start(3, 1);
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void theHolderKeepsItsLockThroughAMasterFailover() throws Exception {
        RedisServerProcess victim = cluster.masters().get(1);
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
                .web(WebApplicationType.NONE)
                .run("--padlock.cluster.nodes=" + String.join(",", cluster.seedUris()),
                        "--padlock.watchdog-timeout=10s", "--padlock.command-timeout=1s",
                        "--padlock.replica-acknowledgement.replicas=1",
                        "--padlock.replica-acknowledgement.timeout=2s")) {
            LockClient client = context.getBean(LockClient.class);
            String name = nameOn(victim, "boot3-failover");
            RLock held = client.getLock(name);
            held.lock();

            victim.kill();
            RedisServerProcess promoted = cluster.awaitFailoverAfterKill(victim, Duration.ofSeconds(30));
            try (RedisAdmin admin = cluster.admin(promoted)) {
                assertThat(admin.commands().exists(name)).as("the acknowledged lock is on the new master").isOne();
                // the watchdog renews on the new master, well before the 10 s lease would run out
                await("the holder sees its lock on the new master").atMost(RECOVERY).pollInSameThread()
                        .ignoreExceptions().until(held::isHeldByCurrentThread);
                await("the holder's unlock").atMost(RECOVERY).pollInSameThread().ignoreExceptions().until(() -> {
                    held.unlock();
                    return true;
                });
                assertThat(admin.commands().exists(name)).as("unlocked on the new master").isZero();
            }
        }
    }

    private String nameOn(RedisServerProcess master, String prefix) {
        for (int i = 0; i < 100_000; i++) {
            String name = prefix + ":" + UUID.randomUUID();
            if (cluster.masterForKey(name).equals(master)) {
                return name;
            }
        }
        throw new IllegalStateException("no name found for " + master);
    }
}
