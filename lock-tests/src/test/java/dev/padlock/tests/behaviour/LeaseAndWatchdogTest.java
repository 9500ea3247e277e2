package dev.padlock.tests.behaviour;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.internal.PadlockClient;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import dev.padlock.tests.support.Renewals;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Leases with a short watchdog timeout (1.5 s, renewed every 500 ms: short enough to see many
 * timeouts go by, long enough that a stall of a second on a busy machine loses no lease). The
 * tests wait for renewals, as the client's observer counts them, rather than for a span of time.
 */
@RedisTest
class LeaseAndWatchdogTest {
    private static final Duration WATCHDOG = Duration.ofMillis(1_500);
    /** The most a condition is given: catches a hang, not a slow machine. */
    private static final Duration BOUND = Duration.ofSeconds(30);

    @RegisterExtension
    final Clients clients = new Clients();
    private LockClient client;
    private final Renewals renewals = new Renewals();
    private final List<String> lost = new CopyOnWriteArrayList<>();

    @BeforeEach
    void open() {
        client = clients.open(b -> b.watchdogTimeout(WATCHDOG).observer(renewals)
                .leaseLostListener((name, threadId) -> lost.add(name + "/" + threadId)));
    }

    @Test
    void aFixedLeaseExpiresByItselfAndIsNeverRenewed(RedisAdmin admin) {
        String name = Clients.uniqueName("fixed");
        client.getLock(name).lock(400, TimeUnit.MILLISECONDS);
        await().atMost(BOUND).pollInterval(Duration.ofMillis(20)).untilAsserted(() -> {
            assertThat(admin.commands().pttl(name)).as("never renewed above its lease").isLessThanOrEqualTo(400L);
            assertThat(admin.commands().exists(name)).isZero();
        });
        assertThat(lost).isEmpty();
    }

    @Test
    void aWatchdogLeaseIsHeldForManyTimeoutsAndStopsAtUnlock(RedisAdmin admin) {
        String name = Clients.uniqueName("watchdog");
        RLock lock = client.getLock(name);
        lock.lock();
        long thread = Thread.currentThread().getId();
        // seven renewals, each finding it held: at least 3 s, two timeouts
        renewals.awaitMore(7);
        assertThat(renewals.lost()).isZero();
        assertThat(admin.commands().exists(name)).isOne();
        assertThat(lock.isHeldByThread(thread)).isTrue();
        lock.unlock();
        assertThat(((PadlockClient) client).renewedLocks()).isZero();

        // the same owner takes it again with a fixed lease: no renewal left over may extend it
        lock.lock(500, TimeUnit.MILLISECONDS);
        await().atMost(BOUND).until(() -> admin.commands().exists(name) == 0);
        assertThat(lost).isEmpty();
    }

    @Test
    void reentrantWatchdogHoldsAreRenewedUntilTheLastUnlock(RedisAdmin admin) {
        String name = Clients.uniqueName("watchdog-reentrant");
        RLock lock = client.getLock(name);
        lock.lock();
        lock.lock();
        lock.unlock();
        // five renewals of the outer hold, each finding it held: at least 2 s, more than a timeout
        renewals.awaitMore(5);
        assertThat(renewals.lost()).isZero();
        assertThat(admin.commands().exists(name)).isOne();
        lock.unlock();
        assertThat(admin.commands().exists(name)).isZero();
        assertThat(((PadlockClient) client).renewedLocks()).isZero();
    }

    @Test
    void closeStopsTheWatchdogAndTheLeaseRunsOut(RedisAdmin admin) {
        String name = Clients.uniqueName("close");
        Renewals closingRenewals = new Renewals();
        LockClient closing = clients.open(b -> b.watchdogTimeout(WATCHDOG).observer(closingRenewals));
        closing.getLock(name).lock();
        closingRenewals.awaitMore(2); // renewed, held
        assertThat(admin.commands().exists(name)).isOne();
        closing.close();
        await().atMost(BOUND).until(() -> admin.commands().exists(name) == 0);
    }

    @Test
    void aLockDeletedBehindTheHoldersBackFiresTheListenerOnce(RedisAdmin admin) {
        String name = Clients.uniqueName("lost");
        RLock lock = client.getLock(name);
        lock.lock();
        long thread = Thread.currentThread().getId();
        admin.commands().del(name);
        await().atMost(BOUND).until(() -> !lost.isEmpty());
        // two renewal periods more: a second call would have come by then (the owner's renewal is gone)
        await().during(Duration.ofMillis(1_000)).atMost(BOUND).until(() -> lost.size() == 1);
        assertThat(lost).containsExactly(name + "/" + thread);
        assertThat(((PadlockClient) client).renewedLocks()).isZero();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
    }

    @Test
    void aLockTakenByAnotherClientAfterExpiryIsALossToo(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("taken");
        RLock lock = client.getLock(name);
        lock.lock();
        admin.commands().del(name);
        admin.commands().hset(name, "someone-else:1", "1");
        await().atMost(BOUND).until(() -> lost.size() == 1);
        assertThat(admin.commands().hgetall(name)).containsOnlyKeys("someone-else:1");
        admin.commands().del(name);
    }

    @Test
    void unlockAndForceUnlockAreNotLosses(RedisAdmin admin) {
        RLock a = client.getLock(Clients.uniqueName("not-lost-a"));
        RLock b = client.getLock(Clients.uniqueName("not-lost-b"));
        a.lock();
        b.lock();
        a.unlock();
        assertThat(b.forceUnlock()).isTrue();
        // two renewal periods: a renewal left for either would have found it gone by then
        await().during(Duration.ofMillis(1_000)).atMost(BOUND).until(lost::isEmpty);
    }
}
