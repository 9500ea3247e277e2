package dev.padlock.tests.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RFencedLock;
import dev.padlock.RLock;
import dev.padlock.RReadWriteLock;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisCluster;
import dev.padlock.testing.RedisServerProcess;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code NOSCRIPT} from one master of a Cluster (issue 40), in the default {@code EVALSHA} mode: a
 * {@code SCRIPT FLUSH} on that master alone (a restart, a failover to a replica that never ran the
 * scripts, an operator) while a watchdog lease lives there and other masters keep their scripts.
 * The lease stays renewed, and each kind locks and unlocks there again, the scripts loaded there
 * by the first call that missed them. The functions mode's counterpart is {@link FunctionsClusterTest}.
 */
class ClusterScriptFlushTest {
    private static final Duration WATCHDOG = Duration.ofMillis(1_500);
    private static final Duration BOUND = Duration.ofSeconds(120);

    private static RedisCluster cluster;

    @BeforeAll
    static void start() {
        cluster = RedisCluster.start(3, 0);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aMasterWhoseScriptsWereFlushedKeepsItsLeasesAndServesEveryKind() {
        RedisServerProcess flushed = cluster.masters().get(1);
        String name = "{" + cluster.hashTagOn(flushed) + "}orders:" + UUID.randomUUID();
        assertTimeoutPreemptively(BOUND, () -> {
            try (LockClient client = LockClient.create(LockConfig.builder()
                    .clusterUris(cluster.seedUris().toArray(String[]::new))
                    .watchdogTimeout(WATCHDOG).build())) {
                RLock held = client.getLock(name + ":held");
                held.lockAsync(-1, TimeUnit.MILLISECONDS, 7L).get(15, TimeUnit.SECONDS);
                RLock elsewhere = client.getLock("{" + cluster.hashTagOn(cluster.masters().get(0)) + "}elsewhere");
                elsewhere.lock(); // scripts on another master, which keeps them
                flush(flushed);
                // renewals meet NOSCRIPT (in order: not sent twice), load the script, and renew again
                await().during(WATCHDOG.multipliedBy(2)).atMost(Duration.ofSeconds(15)).until(() -> held.isHeldByThread(7L));
                held.unlockAsync(7L).get(15, TimeUnit.SECONDS);

                flush(flushed);
                RLock plain = client.getLock(name + ":plain");
                plain.lock();
                plain.unlock();
                flush(flushed);
                RLock fair = client.getFairLock(name + ":fair");
                fair.lock();
                fair.unlock();
                flush(flushed);
                RReadWriteLock rw = client.getReadWriteLock(name + ":rw");
                rw.readLock().lock();
                rw.readLock().unlock();
                rw.writeLock().lock();
                rw.writeLock().unlock();
                flush(flushed);
                RFencedLock fenced = client.getFencedLock(name + ":fenced");
                assertThat(fenced.lockAndGetToken()).isPositive();
                fenced.unlock();
                elsewhere.unlock();
                assertThat(held.isLocked() || plain.isLocked() || fair.isLocked() || fenced.isLocked()).isFalse();
            }
        });
    }

    private static void flush(RedisServerProcess master) {
        try (RedisAdmin admin = cluster.admin(master)) {
            admin.scriptFlush();
        }
    }
}
