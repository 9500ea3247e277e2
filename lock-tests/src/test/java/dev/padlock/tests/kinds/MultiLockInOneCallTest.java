package dev.padlock.tests.kinds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RLock;
import dev.padlock.testing.CommandStats;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.RedisServerProcess;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import dev.padlock.tests.support.Redissons;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;

/**
 * Issue 41: a multi lock of plain locks of one client is taken and given back in one script call
 * (on one server), with the same results as one by one: the components' holds, leases, renewals
 * and re-entries, mixed kinds falling back, and a contended multi lock waiting for all of them.
 */
@RedisTest
class MultiLockInOneCallTest {
    private static final Duration HANG = Duration.ofSeconds(30);

    @RegisterExtension
    final Clients clients = new Clients();
    private String prefix;
    private LockClient mine;
    private LockClient theirs;

    @BeforeEach
    void open() {
        prefix = Clients.uniqueName("multi-call");
        mine = clients.open();
        theirs = clients.open();
    }

    private List<String> names(int n) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            names.add(prefix + ":" + i);
        }
        return names;
    }

    private static RLock multi(LockClient client, List<String> names) {
        return client.getMultiLock(names.stream().map(client::getLock).toArray(RLock[]::new));
    }

    private static String[] array(List<String> names) {
        return names.toArray(String[]::new);
    }

    // ---- round trips, counted on a server of the test's own

    @Test
    void anUncontendedMultiLockOfAHundredAndOfAThousandPlainLocksTakesOneCallToLockAndOneToUnlock() throws Exception {
        try (RedisServerProcess server = RedisServerProcess.start(); RedisAdmin admin = RedisAdmin.connect(server.uri());
                LockClient client = LockClient.create(LockConfig.builder().redisUri(server.uri()).clientRegistry(false)
                        .build())) {
            lockAndUnlock(admin, client, names(2)); // loads the scripts
            for (int n : new int[] {100, 1_000}) {
                List<String> names = names(n).stream().map(name -> name + ":" + n).toList();
                CommandStats start = admin.commandStats();
                CommandStats used = lockAndUnlock(admin, client, names);
                CommandStats delta = CommandStats.delta(start, used).without("info");
                assertThat(admin.commands().exists(array(names))).as("nothing left").isZero();
                System.out.printf("multi lock of %d plain locks, lock and unlock: %s%n", n, delta);
                assertThat(delta.calls("evalsha")).as("%d locks: round trips, %s", n, delta).isEqualTo(2);
                assertThat(delta.calls("eval") + delta.calls("fcall")).isZero();
                // a claim is EXISTS, HSET, PEXPIRE a lock; a release HINCRBY, DEL, PUBLISH
                assertThat(delta.total()).as("%d locks: Redis calls", n).isEqualTo(2 + 6L * n);
            }
            RLock fixed = multi(client, names(100));
            CommandStats start = admin.commandStats();
            assertThat(fixed.tryLock(1, 30, TimeUnit.SECONDS)).isTrue();
            assertThat(admin.commands().pttl(names(100).get(99))).isBetween(20_000L, 30_000L);
            fixed.unlock();
            assertThat(CommandStats.delta(start, admin.commandStats()).calls("evalsha")).as("a fixed lease").isEqualTo(2);
        }
    }

    @Test
    void withFunctionsItIsOneFcallEachWay() throws Exception {
        try (RedisServerProcess server = RedisServerProcess.start(); RedisAdmin admin = RedisAdmin.connect(server.uri())) {
            assumeTrue(!admin.commands().info("server").contains("redis_version:6."), "Redis Functions need Redis 7");
            try (LockClient client = LockClient.create(LockConfig.builder().redisUri(server.uri()).clientRegistry(false)
                    .scripting(LockConfig.Scripting.FUNCTIONS).build())) {
                lockAndUnlock(admin, client, names(2));
                CommandStats start = admin.commandStats();
                CommandStats used = lockAndUnlock(admin, client, names(100));
                CommandStats delta = CommandStats.delta(start, used).without("info");
                assertThat(delta.calls("fcall")).as("%s", delta).isEqualTo(2);
                assertThat(delta.calls("evalsha") + delta.calls("eval")).isZero();
            }
        }
    }

    /** Locks and unlocks a multi lock over {@code names}, nothing else on the server meanwhile; the stats after. */
    private static CommandStats lockAndUnlock(RedisAdmin admin, LockClient client, List<String> names) {
        RLock multi = multi(client, names);
        multi.lock();
        multi.unlock();
        return admin.commandStats();
    }

    // ---- the same results as one by one

    @Test
    void everyComponentHoldsOnceWithItsLeaseAndTheWatchdogRenewsThemAll(RedisAdmin admin) {
        LockClient client = clients.open(b -> b.watchdogTimeout(Duration.ofMillis(1_500)));
        List<String> names = names(5);
        RLock multi = multi(client, names);
        multi.lock();
        for (String name : names) {
            assertThat(admin.commands().hgetall(name)).containsOnlyKeys(client.getId() + ":" + Thread.currentThread().getId());
            assertThat(admin.commands().pttl(name)).isBetween(1L, 1_500L);
        }
        assertThat(multi.isHeldByCurrentThread()).isTrue();
        // renewed past two leases: every component still there
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3_200);
        await().atMost(HANG).pollInterval(Duration.ofMillis(100)).until(() -> {
            assertThat(admin.commands().exists(array(names))).isEqualTo(names.size());
            return System.nanoTime() - until > 0;
        });
        multi.unlock();
        assertThat(admin.commands().exists(array(names))).isZero();
    }

    @Test
    void mixedKindsFallBackToOneByOneWithTheSameResults(RedisAdmin admin) throws Exception {
        List<String> names = names(3);
        RLock multi = mine.getMultiLock(mine.getLock(names.get(0)), mine.getFairLock(names.get(1)),
                mine.getSpinLock(names.get(2)));
        assertThat(multi.tryLock(1, 30, TimeUnit.SECONDS)).isTrue();
        assertThat(admin.commands().exists(array(names))).isEqualTo(3);
        assertThat(multi.getHoldCount()).isOne();
        RLock other = theirs.getMultiLock(theirs.getLock(names.get(0)), theirs.getLock(prefix + ":free"));
        assertThat(other.tryLock()).as("one component held elsewhere: none taken").isFalse();
        assertThat(admin.commands().exists(prefix + ":free")).isZero();
        multi.unlock();
        assertThat(admin.commands().exists(array(names))).isZero();
        assertThat(other.tryLock()).isTrue();
        other.unlock();

        RLock twoClients = mine.getMultiLock(mine.getLock(names.get(0)), theirs.getLock(names.get(1)));
        assertThat(twoClients.tryLock()).as("components of two clients, one by one").isTrue();
        twoClients.unlock();
        assertThat(admin.commands().exists(array(names))).isZero();
    }

    @Test
    void aComponentTheOwnerHoldsAlreadyIsReenteredAndTheOthersTaken(RedisAdmin admin) {
        List<String> names = names(3);
        RLock first = mine.getLock(names.get(0));
        RLock multi = multi(mine, names);
        first.lock();

        multi.lock();

        assertThat(first.getHoldCount()).isEqualTo(2);
        assertThat(mine.getLock(names.get(1)).getHoldCount()).isOne();
        multi.unlock();
        assertThat(first.getHoldCount()).isOne();
        assertThat(admin.commands().exists(names.get(1), names.get(2))).isZero();
        first.unlock();
        assertThat(admin.commands().exists(array(names))).isZero();
    }

    @Test
    void aMultiLockTakenInOneCallIsReentrantAndItsComponentsToo(RedisAdmin admin) {
        List<String> names = names(3);
        RLock multi = multi(mine, names);
        RLock first = mine.getLock(names.get(0));
        multi.lock();
        first.lock(); // a re-entry of the component, not a new count
        assertThat(first.getHoldCount()).isEqualTo(2);
        first.unlock();
        assertThat(first.isHeldByCurrentThread()).as("the multi lock's hold stays").isTrue();

        multi.lock();
        assertThat(multi.getHoldCount()).isEqualTo(2);
        multi.unlock();
        assertThat(multi.isHeldByCurrentThread()).isTrue();
        multi.unlock();
        assertThat(admin.commands().exists(array(names))).isZero();
        assertThatThrownBy(multi::unlock).isInstanceOf(IllegalMonitorStateException.class);

        multi.lock(); // and again, a first hold
        assertThat(multi.getHoldCount()).isOne();
        multi.unlock();
        assertThat(admin.commands().exists(array(names))).isZero();
    }

    /**
     * A multi lock object is made per call as often as it is kept: the holds one took in one call
     * are the client's, so another object of the same locks re-enters and releases them in one call
     * (released one by one through the views, which never counted them, they were left counted, and
     * the next multi lock of those locks went one by one).
     */
    @Test
    void anotherMultiLockObjectOfTheSameLocksReentersAndReleasesInOneCall() throws Exception {
        try (RedisServerProcess server = RedisServerProcess.start(); RedisAdmin admin = RedisAdmin.connect(server.uri());
                LockClient client = LockClient.create(LockConfig.builder().redisUri(server.uri()).clientRegistry(false)
                        .build())) {
            List<String> names = names(100);
            lockAndUnlock(admin, client, names(2)); // loads the scripts
            CommandStats start = admin.commandStats();
            multi(client, names).lock(60, TimeUnit.SECONDS); // no renewal to count
            multi(client, names).lock(60, TimeUnit.SECONDS); // no renewal to count
            assertThat(multi(client, names).getHoldCount()).isEqualTo(2);
            multi(client, names).unlock();
            multi(client, names).unlock();
            assertThat(admin.commands().exists(array(names))).isZero();
            multi(client, names).lock(60, TimeUnit.SECONDS); // no renewal to count
            multi(client, names).unlock();
            assertThat(CommandStats.delta(start, admin.commandStats()).calls("evalsha")).as("one call each").isEqualTo(6);
            assertThat(admin.commands().exists(array(names))).isZero();
        }
    }

    @Test
    void aComponentLostBehindTheOwnersBackFailsTheUnlockAndTheOthersAreReleased(RedisAdmin admin) {
        List<String> names = names(3);
        RLock multi = multi(mine, names);
        multi.lock(30, TimeUnit.SECONDS);
        assertThat(admin.commands().del(names.get(1))).isOne();

        assertThatThrownBy(multi::unlock).isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining(names.get(1));

        assertThat(admin.commands().exists(array(names))).isZero();
        assertThat(multi.tryLock()).isTrue();
        multi.unlock();
    }

    @Test
    void aContendedMultiLockWaitsAndGetsAllOfThemOnceTheOtherClientReleases(RedisAdmin admin) throws Exception {
        List<String> names = names(4);
        RLock other = theirs.getLock(names.get(2));
        other.lock(60, TimeUnit.SECONDS);
        RLock multi = multi(mine, names);
        long owner = 51;
        CompletableFuture<Boolean> held = multi.tryLockAsync(60, 30, TimeUnit.SECONDS, owner);
        // one by one: it holds what comes before the held component and waits for that one
        await().atMost(HANG).until(() -> admin.commands().exists(names.get(0), names.get(1)) == 2);
        assertThat(held).isNotDone();
        assertThat(admin.commands().exists(names.get(3))).isZero();

        other.unlock();

        assertThat(held.get(30, TimeUnit.SECONDS)).isTrue();
        for (String name : names) {
            assertThat(mine.getLock(name).isHeldByThread(owner)).as(name).isTrue();
        }
        multi.unlockAsync(owner).get(30, TimeUnit.SECONDS);
        assertThat(admin.commands().exists(array(names))).isZero();
    }

    @Test
    void waitersOfThisClientOfAnotherClientAndOfRedissonGetTheComponentsAtTheUnlock(RedisEndpoint redis,
            RedisAdmin admin) throws Exception {
        List<String> names = names(3);
        RLock multi = multi(mine, names);
        long owner = 61;
        assertThat(multi.tryLockAsync(0, 60, TimeUnit.SECONDS, owner).get(30, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Boolean> sameClient = mine.getLock(names.get(0)).tryLockAsync(60, 60, TimeUnit.SECONDS, 62);
        CompletableFuture<Boolean> otherClient = theirs.getLock(names.get(1)).tryLockAsync(60, 60, TimeUnit.SECONDS, 63);
        RedissonClient redisson = Redissons.open(redis.uri());
        try {
            CompletableFuture<Boolean> redissons = redisson.getLock(names.get(2))
                    .tryLockAsync(60, 60, TimeUnit.SECONDS, 64).toCompletableFuture();
            String channel = "redisson_lock__channel:{" + names.get(2) + "}";
            await().atMost(HANG).until(() -> admin.commands().pubsubNumsub(channel).get(channel) >= 1);
            assertThat(sameClient).isNotDone();
            assertThat(otherClient).isNotDone();
            assertThat(redissons).isNotDone();

            multi.unlockAsync(owner).get(30, TimeUnit.SECONDS);

            // woken by the unlock, long before the 60 s lease would have run out
            assertThat(sameClient.get(20, TimeUnit.SECONDS)).isTrue();
            assertThat(otherClient.get(20, TimeUnit.SECONDS)).isTrue();
            assertThat(redissons.get(20, TimeUnit.SECONDS)).isTrue();
            assertThat(mine.getLock(names.get(0)).isHeldByThread(62)).isTrue();
            mine.getLock(names.get(0)).unlockAsync(62).get(30, TimeUnit.SECONDS);
            theirs.getLock(names.get(1)).unlockAsync(63).get(30, TimeUnit.SECONDS);
            redisson.getLock(names.get(2)).forceUnlock();
        } finally {
            Redissons.close(redisson);
        }
        assertThat(admin.commands().exists(array(names))).isZero();
    }

    @Test
    void aComponentARedissonClientHoldsIsNotTaken(RedisEndpoint redis, RedisAdmin admin) throws Exception {
        List<String> names = names(3);
        RedissonClient redisson = Redissons.open(redis.uri());
        try {
            org.redisson.api.RLock theirsLock = redisson.getLock(names.get(1));
            theirsLock.lock(60, TimeUnit.SECONDS);
            RLock multi = multi(mine, names);
            assertThat(multi.tryLock(200, 30_000, TimeUnit.MILLISECONDS)).isFalse();
            assertThat(admin.commands().exists(names.get(0), names.get(2))).isZero();
            theirsLock.unlock();
            assertThat(multi.tryLock(1, 30, TimeUnit.SECONDS)).isTrue();
            multi.unlock();
        } finally {
            Redissons.close(redisson);
        }
        assertThat(admin.commands().exists(array(names))).isZero();
    }
}
