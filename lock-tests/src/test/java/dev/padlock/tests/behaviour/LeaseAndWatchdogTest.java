package dev.padlock.tests.behaviour;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.tests.support.Clients;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.internal.PadlockClient;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.junit.RedisTest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Leases with a short watchdog timeout (300 ms, renewed every 100 ms). */
@RedisTest
class LeaseAndWatchdogTest {
    private static final Duration WATCHDOG = Duration.ofMillis(300);

    @RegisterExtension
    final Clients clients = new Clients();
    private LockClient client;
    private final List<String> lost = new CopyOnWriteArrayList<>();

    @BeforeEach
    void open() {
        client = clients.open(b -> b.watchdogTimeout(WATCHDOG)
                .leaseLostListener((name, threadId) -> lost.add(name + "/" + threadId)));
    }

    @Test
    void aFixedLeaseExpiresByItselfAndIsNeverRenewed(RedisAdmin admin) {
        String name = Clients.uniqueName("fixed");
        client.getLock(name).lock(400, TimeUnit.MILLISECONDS);
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20)).untilAsserted(() -> {
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
        await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(3))
                .until(() -> admin.commands().exists(name) == 1 && lock.isHeldByThread(thread));
        lock.unlock();
        assertThat(((PadlockClient) client).renewedLocks()).isZero();

        // the same owner takes it again with a fixed lease: no renewal left over may extend it
        lock.lock(500, TimeUnit.MILLISECONDS);
        await().atMost(Duration.ofSeconds(5)).until(() -> admin.commands().exists(name) == 0);
        assertThat(lost).isEmpty();
    }

    @Test
    void reentrantWatchdogHoldsAreRenewedUntilTheLastUnlock(RedisAdmin admin) {
        String name = Clients.uniqueName("watchdog-reentrant");
        RLock lock = client.getLock(name);
        lock.lock();
        lock.lock();
        lock.unlock();
        await().during(Duration.ofMillis(1000)).atMost(Duration.ofSeconds(3))
                .until(() -> admin.commands().exists(name) == 1);
        lock.unlock();
        assertThat(admin.commands().exists(name)).isZero();
        assertThat(((PadlockClient) client).renewedLocks()).isZero();
    }

    @Test
    void closeStopsTheWatchdogAndTheLeaseRunsOut(RedisAdmin admin) {
        String name = Clients.uniqueName("close");
        LockClient closing = clients.open(b -> b.watchdogTimeout(WATCHDOG));
        closing.getLock(name).lock();
        await().during(Duration.ofMillis(700)).atMost(Duration.ofSeconds(2)).until(() -> admin.commands().exists(name) == 1);
        closing.close();
        await().atMost(Duration.ofSeconds(5)).until(() -> admin.commands().exists(name) == 0);
    }

    @Test
    void aLockDeletedBehindTheHoldersBackFiresTheListenerOnce(RedisAdmin admin) {
        String name = Clients.uniqueName("lost");
        RLock lock = client.getLock(name);
        lock.lock();
        long thread = Thread.currentThread().getId();
        admin.commands().del(name);
        await().atMost(Duration.ofSeconds(3)).until(() -> !lost.isEmpty());
        await().during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(2)).until(() -> lost.size() == 1);
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
        await().atMost(Duration.ofSeconds(3)).until(() -> lost.size() == 1);
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
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(lost::isEmpty);
    }
}
