package dev.padlock.tests.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RLock;
import dev.padlock.testing.CommandStats;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisCluster;
import dev.padlock.testing.RedisServerProcess;
import io.lettuce.core.FlushMode;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link LockConfig.Scripting#FUNCTIONS} on a 3-master Cluster (issue 40), for an ACL user without
 * {@code EVAL}, {@code EVALSHA} or {@code SCRIPT}: the library is loaded on every master at
 * connect; after a {@code FUNCTION FLUSH} on one master, a lock held there stays renewed and every
 * kind, its keys on that master, locks, waits, hands over and renews, the library loaded there
 * again by the first call that missed it.
 */
class FunctionsClusterTest {
    private static final String PASSWORD = "padlock-secret";
    private static final Duration WATCHDOG = Duration.ofMillis(1_500);
    private static final Duration BOUND = Duration.ofSeconds(180);
    /** Anything but scripts, then FCALL and FUNCTION LOAD: the Cluster's topology commands included. */
    private static final String RULE = "~* &* +@all -@scripting +fcall +function|load";

    private static RedisCluster cluster;

    @BeforeAll
    static void start() {
        cluster = RedisCluster.start(3, 0);
        for (RedisServerProcess node : cluster.nodes()) {
            try (RedisAdmin admin = cluster.admin(node)) {
                PadlockAcl.setUser(admin, "orders-app", PASSWORD, RULE);
                admin.commands().aclLogReset();
            }
        }
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void everyKindWorksOnAMasterWhoseFunctionsWereFlushed() {
        RedisServerProcess flushed = cluster.masters().get(1);
        // a hash tag puts every key of every kind (and of the multi and red locks' parts) on that master
        String name = "{" + tagOn(flushed) + "}orders:" + UUID.randomUUID();
        assertTimeoutPreemptively(BOUND, () -> {
            Map<RedisServerProcess, CommandStats> before = new HashMap<>();
            cluster.masters().forEach(master -> before.put(master, cluster.commandStats(master)));
            try (LockClient one = connect(); LockClient two = connect()) {
                for (RedisServerProcess master : cluster.masters()) {
                    assertThat(libraries(master)).as("loaded at connect on %s", master).hasSize(1);
                }
                RLock held = one.getLock(name + ":held");
                held.lockAsync(-1, TimeUnit.MILLISECONDS, 7L).get(15, TimeUnit.SECONDS);
                try (RedisAdmin admin = cluster.admin(flushed)) {
                    admin.commands().functionFlush(FlushMode.SYNC);
                }
                assertThat(libraries(flushed)).isEmpty();
                // the next renewal fails (it is not sent twice) and loads the library; the one after renews
                await().atMost(Duration.ofSeconds(10)).until(() -> libraries(flushed).size() == 1);
                await().during(WATCHDOG.multipliedBy(2)).atMost(Duration.ofSeconds(15)).until(() -> held.isHeldByThread(7L));
                held.unlockAsync(7L).get(15, TimeUnit.SECONDS);

                try (RedisAdmin admin = cluster.admin(flushed)) {
                    admin.commands().functionFlush(FlushMode.SYNC);
                }
                EveryKindScenario.run(one, two, name, WATCHDOG);
                assertThat(libraries(flushed)).as("loaded again by the first call that missed it").hasSize(1);
            }
            long evals = 0;
            for (RedisServerProcess master : cluster.masters()) {
                CommandStats used = CommandStats.delta(before.get(master), cluster.commandStats(master));
                evals += used.calls("eval") + used.calls("evalsha");
            }
            assertThat(evals).as("no EVAL on any master").isZero();
        });
        for (RedisServerProcess node : cluster.nodes()) {
            try (RedisAdmin admin = cluster.admin(node)) {
                assertThat(PadlockAcl.denials(admin)).as("ACL LOG of %s", node).isEmpty();
            }
        }
    }

    private static LockClient connect() {
        List<String> seeds = cluster.seedUris().stream()
                .map(uri -> PadlockAcl.withUser(uri, "orders-app", PASSWORD)).toList();
        return LockClient.create(LockConfig.builder()
                .clusterUris(seeds.toArray(String[]::new))
                .scripting(LockConfig.Scripting.FUNCTIONS)
                .commandTimeout(Duration.ofSeconds(3))
                .watchdogTimeout(WATCHDOG)
                .build());
    }

    /** A hash tag whose slot {@code master} serves. */
    private static String tagOn(RedisServerProcess master) {
        for (int i = 0; i < 100_000; i++) {
            if (cluster.masterForKey("{f" + i + "}").equals(master)) {
                return "f" + i;
            }
        }
        throw new IllegalStateException("no tag of the first 100,000 falls on " + master);
    }

    private static List<String> libraries(RedisServerProcess node) {
        try (RedisAdmin admin = cluster.admin(node)) {
            return admin.commands().functionList("padlock_*").stream()
                    .map(library -> (String) library.get("library_name")).toList();
        }
    }
}
