package dev.padlock.tests.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RLock;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisCluster;
import dev.padlock.testing.RedisServerProcess;
import dev.padlock.testing.SlotMigration;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A lock's slot in mid-migration (issue 40): the source master {@code MIGRATING}, the target
 * {@code IMPORTING}, as a resharding leaves it between its steps. A call that names the lock
 * alone (a first acquisition) is served: Lettuce follows the {@code ASK} to the target. Redis
 * refuses a script call with {@code TRYAGAIN} when the lock's keys are split between the two, or
 * some absent (the target, importing, refuses a call with several keys when one is missing). A
 * refused re-entry, wait or unlock is sent again until the migration ends, within the command
 * timeout; a watchdog renewal, which must keep its place among the client's calls, is not sent
 * again, and the next round renews the lease once the slot has moved. Each test waits until Redis
 * has refused the call (its {@code TRYAGAIN} count, from {@code INFO errorstats}), more than once
 * where it checks a call sent again, then ends the migration.
 */
class ClusterReshardingTest {
    /** Long: the retries last as long as a migration that the test ends when it is ready. */
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration BOUND = Duration.ofSeconds(60);
    private static final long OWNER = 1;
    private static final long OTHER_OWNER = 2;

    private static final Set<Integer> USED_SLOTS = ConcurrentHashMap.newKeySet();

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

    private static LockClient client(Duration watchdog) {
        return LockClient.create(LockConfig.builder().clusterUris(cluster.seedUris().toArray(String[]::new))
                .commandTimeout(COMMAND_TIMEOUT).watchdogTimeout(watchdog).build());
    }

    /** A lock name on the first master, in a slot no other test of this class migrated. */
    private static String nameOnTheFirstMaster() {
        RedisServerProcess first = cluster.masters().get(0);
        for (int i = 0;; i++) {
            String tag = "{resharding" + i + "}";
            if (cluster.masterForKey(tag).equals(first) && USED_SLOTS.add(SlotHash.getSlot(tag))) {
                return tag + "orders:" + UUID.randomUUID();
            }
        }
    }

    private static SlotMigration migrate(String name) {
        return cluster.migrateSlot(SlotHash.getSlot(name), cluster.masters().get(1));
    }

    @Test
    void aReentryRefusedWithTryAgainIsSentAgainUntilTheMigrationEnds() throws Exception {
        String name = nameOnTheFirstMaster();
        try (LockClient client = client(Duration.ofSeconds(30))) {
            RLock lock = client.getLock(name);
            SlotMigration migration = migrate(name);
            long before = tryAgains();
            // a first acquisition names the lock alone: ASK, and the target, importing, takes it
            assertThat(lock.tryLockAsync(0, 60_000, TimeUnit.MILLISECONDS, OWNER).get(BOUND.toSeconds(), TimeUnit.SECONDS))
                    .isTrue();
            assertThat(tryAgains()).isEqualTo(before);
            try (RedisAdmin target = cluster.admin(migration.target())) {
                target.commands().asking();
                assertThat(target.commands().exists(name)).as("the lock on the importing target").isEqualTo(1L);
            }
            // a re-entry names the lock and its holders' since, which is not there: TRYAGAIN
            CompletableFuture<Void> reentered = lock.lockAsync(60_000, TimeUnit.MILLISECONDS, OWNER);
            awaitRefusals(before + 2, reentered);
            assertThat(reentered).as("refused twice and still being sent again").isNotDone();

            migration.finish();
            reentered.get(BOUND.toSeconds(), TimeUnit.SECONDS);
            try (RedisAdmin target = cluster.admin(migration.target())) {
                assertThat(target.commands().hget(name, client.getId() + ":" + OWNER)).as("two holds").isEqualTo("2");
            }
            lock.unlockAsync(OWNER).get(BOUND.toSeconds(), TimeUnit.SECONDS);
            lock.unlockAsync(OWNER).get(BOUND.toSeconds(), TimeUnit.SECONDS);
            assertThat(lock.isLockedAsync().get(BOUND.toSeconds(), TimeUnit.SECONDS)).isFalse();
        }
    }

    @Test
    void anUnlockRefusedWithTryAgainIsSentAgainAndWakesTheWaiter() throws Exception {
        String name = nameOnTheFirstMaster();
        try (LockClient holderClient = client(Duration.ofSeconds(30));
                LockClient waiterClient = client(Duration.ofSeconds(30))) {
            RLock holder = holderClient.getLock(name);
            RLock waiter = waiterClient.getLock(name);
            holder.lockAsync(120_000, TimeUnit.MILLISECONDS, OWNER).get(BOUND.toSeconds(), TimeUnit.SECONDS);
            SlotMigration migration = migrate(name);
            migration.moveKeys(name); // the lock on the target, its other keys (if any yet) on the source
            long before = tryAgains();
            CompletableFuture<Boolean> acquired = waiter.tryLockAsync(240_000, 30_000, TimeUnit.MILLISECONDS, OTHER_OWNER);
            CompletableFuture<Void> unlocked = holder.unlockAsync(OWNER);
            awaitRefusals(before + 3, unlocked);
            assertThat(unlocked).as("refused and still being sent again").isNotDone();
            assertThat(acquired).isNotDone();

            migration.finish();
            unlocked.get(BOUND.toSeconds(), TimeUnit.SECONDS);
            assertThat(acquired.get(BOUND.toSeconds(), TimeUnit.SECONDS)).as("woken by the unlock, not the lease")
                    .isTrue();
            waiter.unlockAsync(OTHER_OWNER).get(BOUND.toSeconds(), TimeUnit.SECONDS);
        }
    }

    @Test
    void aWatchdogLeaseOutlivesAMigrationThatRefusesARenewal() throws Exception {
        String name = nameOnTheFirstMaster();
        List<String> lost = new CopyOnWriteArrayList<>();
        try (LockClient client = LockClient.create(LockConfig.builder()
                .clusterUris(cluster.seedUris().toArray(String[]::new)).commandTimeout(COMMAND_TIMEOUT)
                .watchdogTimeout(Duration.ofSeconds(9)) // a round every 3 s
                .leaseLostListener((lockName, owner) -> lost.add(lockName)).build())) {
            RLock lock = client.getLock(name);
            lock.lockAsync(-1, TimeUnit.MILLISECONDS, OWNER).get(BOUND.toSeconds(), TimeUnit.SECONDS);
            SlotMigration migration = migrate(name);
            migration.moveKeys(name); // split from its holders' since, or alone: TRYAGAIN either way
            long before = tryAgains();
            awaitRefusals(before + 1, new CompletableFuture<>()); // a renewal round refused

            migration.finish();
            try (RedisAdmin target = cluster.admin(migration.target())) {
                long ttl = target.commands().pttl(name);
                await("a round renews the lease on the target").atMost(BOUND).pollInterval(Duration.ofMillis(50))
                        .until(() -> target.commands().pttl(name) > ttl);
                assertThat(target.commands().hget(name, client.getId() + ":" + OWNER)).isEqualTo("1");
            }
            assertThat(lost).as("no lease lost").isEmpty();
            lock.unlockAsync(OWNER).get(BOUND.toSeconds(), TimeUnit.SECONDS);
        }
    }

    /** Waits until the masters refused {@code atLeast} calls with TRYAGAIN in all, or {@code call} ended. */
    private static void awaitRefusals(long atLeast, CompletableFuture<?> call) {
        BooleanSupplier refused = () -> tryAgains() >= atLeast;
        await("calls refused with TRYAGAIN").atMost(BOUND).pollInterval(Duration.ofMillis(5))
                .until(() -> refused.getAsBoolean() || call.isDone());
        if (call.isCompletedExceptionally()) {
            call.join(); // its failure, as the test's
        }
    }

    /** Calls refused with {@code TRYAGAIN} on every master so far ({@code INFO errorstats}; Redis 6.2+). */
    private static long tryAgains() {
        long count = 0;
        for (RedisServerProcess master : cluster.masters()) {
            try (RedisAdmin admin = cluster.admin(master)) {
                String stat = admin.infoField("errorstats", "errorstat_TRYAGAIN"); // count=N
                count += stat == null ? 0 : Long.parseLong(stat.replaceAll("^count=(\\d+).*$", "$1"));
            }
        }
        return count;
    }
}
