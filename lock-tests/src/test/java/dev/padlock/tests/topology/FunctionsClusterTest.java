package dev.padlock.tests.topology;

import static org.junit.jupiter.api.Assumptions.assumeTrue;
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
import io.lettuce.core.ScriptOutputType;
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
 * {@code EVAL}, {@code EVALSHA} or {@code SCRIPT}: the library {@code padlock} is loaded on every
 * master at connect, beside another Padlock version's block where one master has it; after a
 * {@code FUNCTION FLUSH} on one master, a lock held there stays renewed and every kind, its keys on
 * that master, locks, waits, hands over and renews, the library loaded there again by the first
 * call that missed it.
 */
class FunctionsClusterTest {
    private static final String PASSWORD = "padlock-secret";
    private static final Duration WATCHDOG = Duration.ofMillis(1_500);
    private static final Duration BOUND = Duration.ofSeconds(180);
    /** Anything but scripts, then FCALL and FUNCTION LOAD: the Cluster's topology commands included. */
    private static final String RULE = "~* &* +@all -@scripting +fcall +function|list +function|load";
    /** A stand-in for an older Padlock version's block: its version probe alone. */
    private static final String OLDER = "0123456789ab";
    private static final String OLDER_LIBRARY = "#!lua name=padlock\n-- padlock version " + OLDER + " begin\n"
            + "redis.register_function{function_name='padlock_" + OLDER + "_version', callback=function()\n"
            + "return '" + OLDER + "'\nend, flags={'no-writes'}}\n-- padlock version " + OLDER + " end\n";

    private static RedisCluster cluster;

    @BeforeAll
    static void start() {
        cluster = RedisCluster.start(3, 0);
        assumeTrue(cluster.masters().get(0).majorVersion() >= 7,
                () -> "Redis Functions need Redis 7: " + cluster.masters().get(0).version());
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
        RedisServerProcess shared = cluster.masters().get(0);
        try (RedisAdmin admin = cluster.admin(shared)) {
            admin.commands().functionLoad(OLDER_LIBRARY);
        }
        // a hash tag puts every key of every kind (and of the multi and red locks' parts) on that master
        String name = "{" + cluster.hashTagOn(flushed) + "}orders:" + UUID.randomUUID();
        assertTimeoutPreemptively(BOUND, () -> {
            Map<RedisServerProcess, CommandStats> before = new HashMap<>();
            cluster.masters().forEach(master -> before.put(master, cluster.commandStats(master)));
            try (LockClient one = connect(); LockClient two = connect()) {
                for (RedisServerProcess master : cluster.masters()) {
                    assertThat(libraries(master)).as("loaded at connect on %s", master).containsExactly("padlock");
                    try (RedisAdmin admin = cluster.admin(master)) {
                        assertThat(PadlockLibrary.versions(PadlockLibrary.code(admin), "version"))
                                .as("versions on %s", master).hasSize(master.equals(shared) ? 2 : 1);
                    }
                }
                try (RedisAdmin admin = cluster.admin(shared)) {
                    assertThat(PadlockLibrary.versions(PadlockLibrary.code(admin), "version")).as("the older version kept")
                            .startsWith(OLDER);
                    assertThat(admin.commands().<String>fcall("padlock_" + OLDER + "_version", ScriptOutputType.VALUE))
                            .isEqualTo(OLDER);
                }
                RLock held = one.getLock(name + ":held");
                held.lockAsync(-1, TimeUnit.MILLISECONDS, 7L).get(15, TimeUnit.SECONDS);
                try (RedisAdmin admin = cluster.admin(flushed)) {
                    admin.commands().functionFlush(FlushMode.SYNC);
                }
                // (no check that it is gone: the watchdog renews every 500 ms, and may load it back at once)
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

    private static List<String> libraries(RedisServerProcess node) {
        try (RedisAdmin admin = cluster.admin(node)) {
            return PadlockLibrary.names(admin);
        }
    }
}
