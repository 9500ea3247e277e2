package dev.padlock.tests.behaviour;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.PadlockException;
import dev.padlock.RLock;
import dev.padlock.RReadWriteLock;
import dev.padlock.internal.PadlockClient;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisServerProcess;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import dev.padlock.tests.support.Renewals;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Regressions of issue 9 ("One truth"): a thread holds a lock only when Redis says so, and a lock
 * that Redis shows free is not kept from waiters by this client's own state. Each test is named
 * for the defect it pins; each failed on the engine before the fix.
 */
@RedisTest
class OneTruthTest {
    private static final Duration HANG = Duration.ofSeconds(30);

    @RegisterExtension
    final Clients clients = new Clients();

    /** Defect 1: the successor was told it holds when the hand-off was sent, not when Redis answered. */
    @Test
    void aHandOffOfALockLostBehindTheHoldersBackGrantsNothing(RedisAdmin admin) throws Exception {
        LockClient a = clients.open();
        LockClient b = clients.open();
        for (int round = 0; round < 10; round++) {
            String name = Clients.uniqueName("lost-behind-back");
            RLock lock = a.getLock(name);
            lock.lockAsync(30, TimeUnit.SECONDS, 1L).get(5, TimeUnit.SECONDS);
            long checks = admin.commandStats().calls("hexists");
            CompletableFuture<Void> successor = lock.lockAsync(30, TimeUnit.SECONDS, 2L);
            // once subscribed, the queue asks whether the holder still holds (its HEXISTS, the only
            // one here: fixed leases send no renewal, whose script also calls it): the loss must
            // come after that look, which would see it
            await().atMost(HANG).until(() -> admin.commandStats().calls("hexists") > checks);
            RLock other = b.getLock(name);
            assertThat(admin.commands().del(name)).isOne(); // lost as in a restart or FLUSHALL: no message
            assertThat(other.tryLockAsync(0, 30, TimeUnit.SECONDS, 7L).get(5, TimeUnit.SECONDS)).isTrue();

            assertThatThrownBy(() -> lock.unlockAsync(1L).get(5, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(IllegalMonitorStateException.class);
            await().during(Duration.ofMillis(300)).atMost(HANG).until(() -> !successor.isDone());
            assertThat(admin.commands().hkeys(name)).containsExactly(b.getId() + ":7");

            other.unlockAsync(7L).get(5, TimeUnit.SECONDS);
            successor.get(5, TimeUnit.SECONDS);
            assertThat(lock.isHeldByThread(2L)).isTrue();
            lock.unlockAsync(2L).get(5, TimeUnit.SECONDS);
        }
    }

    /** Defect 2: an inner unlock through another kind handed the lock on while the owner still held it. */
    @Test
    void anInnerUnlockAfterAReentryThroughAnotherKindHandsNothingOn() throws Exception {
        LockClient client = clients.open();
        for (int round = 0; round < 5; round++) {
            String name = Clients.uniqueName("cross-kind-reentry");
            RLock plain = client.getLock(name);
            RLock spin = client.getSpinLock(name);
            plain.lockAsync(30, TimeUnit.SECONDS, 1L).get(5, TimeUnit.SECONDS);
            spin.lockAsync(30, TimeUnit.SECONDS, 1L).get(5, TimeUnit.SECONDS);
            CompletableFuture<Void> queued = plain.lockAsync(30, TimeUnit.SECONDS, 2L);

            plain.unlockAsync(1L).get(5, TimeUnit.SECONDS); // inner: one hold remains
            await().during(Duration.ofMillis(200)).atMost(HANG).until(() -> !queued.isDone());
            assertThat(plain.isHeldByThread(1L)).isTrue();
            assertThat(plain.isHeldByThread(2L)).isFalse();

            spin.unlockAsync(1L).get(5, TimeUnit.SECONDS);
            queued.get(5, TimeUnit.SECONDS);
            assertThat(plain.isHeldByThread(2L)).isTrue();
            plain.unlockAsync(2L).get(5, TimeUnit.SECONDS);
        }
    }

    /** Defect 3: the watchdog renewed one reader of a read lock, and the other's lease ran out. */
    @Test
    void theWatchdogRenewsEveryReaderOfAReadLock() throws Exception {
        // renewed every 500 ms: a stall of a second on a loaded machine loses nothing
        Renewals renewals = new Renewals();
        LockClient readers = clients.open(c -> c.watchdogTimeout(Duration.ofMillis(1_500)).observer(renewals));
        LockClient writers = clients.open();
        String name = Clients.uniqueName("two-readers");
        RReadWriteLock rw = readers.getReadWriteLock(name);
        rw.readLock().lockAsync(-1, TimeUnit.MILLISECONDS, 1L).get(5, TimeUnit.SECONDS);
        rw.readLock().lockAsync(-1, TimeUnit.MILLISECONDS, 2L).get(5, TimeUnit.SECONDS);
        assertThat(((PadlockClient) readers).renewedLocks()).isEqualTo(2);

        // five rounds of both readers found holding (at least 2 s, more than a lease): only renewals keep them
        renewals.awaitMore(2 * 5);
        assertThat(renewals.lost()).as("no reader's lease lost").isZero();
        rw.readLock().unlockAsync(1L).get(5, TimeUnit.SECONDS);
        assertThat(writers.getReadWriteLock(name).writeLock().tryLock()).as("reader 2 still holds").isFalse();
        assertThat(rw.readLock().isHeldByThread(2L)).isTrue();
        rw.readLock().unlockAsync(2L).get(5, TimeUnit.SECONDS);
        assertThat(((PadlockClient) readers).renewedLocks()).isZero();
    }

    /**
     * Defect 4: renewals were kept per lock and checked through one owner, so an owner found lost
     * took every other owner's renewal with it.
     */
    @Test
    void aLostOwnerDoesNotTakeAnotherOwnersRenewalWithIt(RedisAdmin admin) throws Exception {
        List<String> lost = new ArrayList<>();
        Renewals renewals = new Renewals();
        LockClient readers = clients.open(c -> c.watchdogTimeout(Duration.ofMillis(1_500)).observer(renewals)
                .leaseLostListener((lockName, threadId) -> {
                    synchronized (lost) {
                        lost.add(lockName + "/" + threadId);
                    }
                }));
        String name = Clients.uniqueName("one-lost-reader");
        RReadWriteLock rw = readers.getReadWriteLock(name);
        rw.readLock().lockAsync(-1, TimeUnit.MILLISECONDS, 1L).get(5, TimeUnit.SECONDS);
        rw.readLock().lockAsync(-1, TimeUnit.MILLISECONDS, 2L).get(5, TimeUnit.SECONDS);
        // reader 1's hold vanishes behind its back; reader 2's stays
        String field = readers.getId() + ":1";
        admin.commands().hdel(name, field);
        admin.commands().del("{" + name + "}:" + field + ":rwlock_timeout:1");

        await().atMost(HANG).until(() -> {
            synchronized (lost) {
                return lost.contains(name + "/1");
            }
        });
        // five renewals of reader 2 after the loss (at least 2 s, more than a lease): it lives on renewals alone
        renewals.awaitMore(5);
        assertThat(rw.readLock().isHeldByThread(2L)).isTrue();
        synchronized (lost) {
            assertThat(lost).containsExactly(name + "/1");
        }
        rw.readLock().unlockAsync(2L).get(5, TimeUnit.SECONDS);
    }

    /** Defect 6: after this client's forceUnlock the local queue still believed in the old holder. */
    @Test
    void aForceUnlockByTheSameClientLeavesNoPhantomHolder() throws Exception {
        LockClient client = clients.open();
        String name = Clients.uniqueName("phantom");
        RLock lock = client.getLock(name);
        lock.lockAsync(-1, TimeUnit.MILLISECONDS, 1L).get(5, TimeUnit.SECONDS);
        // a wait far longer than the bound below: a waiter left behind the phantom holder times the get out
        CompletableFuture<Boolean> waiter = lock.tryLockAsync(60, -1, TimeUnit.SECONDS, 3L);
        assertThat(lock.forceUnlock()).isTrue();
        assertThat(waiter.get(20, TimeUnit.SECONDS)).as("the queued waiter gets the freed lock at once").isTrue();
        lock.unlockAsync(3L).get(5, TimeUnit.SECONDS);

        lock.lockAsync(-1, TimeUnit.MILLISECONDS, 1L).get(5, TimeUnit.SECONDS);
        assertThat(client.getSpinLock(name).forceUnlock()).isTrue();
        assertThat(lock.tryLockAsync(0, -1, TimeUnit.MILLISECONDS, 2L).get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(lock.forceUnlock()).isTrue();
        lock.lockAsync(-1, TimeUnit.MILLISECONDS, 4L).get(5, TimeUnit.SECONDS); // hung forever
        lock.unlockAsync(4L).get(5, TimeUnit.SECONDS);
        assertThatThrownBy(() -> lock.unlockAsync(1L).get(5, TimeUnit.SECONDS))
                .hasCauseInstanceOf(IllegalMonitorStateException.class);
    }

    /**
     * LockModelTest seed 7, sequence 63: another client's force unlock of this client's holder was
     * not heard (nobody of this client queued, so it was not subscribed), and a later waiter of this
     * client queued behind the holder Redis no longer had, until the holder's 20 s lease ran out.
     */
    @Test
    void stuckWaiterBehindAHolderForceUnlockedBeforeAnyoneQueued(RedisAdmin admin) throws Exception {
        LockClient a = clients.open();
        LockClient b = clients.open();
        for (String kind : List.of("plain", "spin")) {
            String name = Clients.uniqueName("unheard-force-unlock");
            RLock held = kind.equals("spin") ? a.getSpinLock(name) : a.getLock(name);
            held.lockAsync(60, TimeUnit.SECONDS, 1L).get(5, TimeUnit.SECONDS);
            assertThat(b.getLock(name).forceUnlock()).as(kind).isTrue();
            assertThat(admin.commands().exists(name)).as(kind).isZero();

            // a wait far shorter than the old holder's lease: a waiter left behind it times the get out
            RLock plain = a.getLock(name);
            assertThat(plain.tryLockAsync(30, 10, TimeUnit.SECONDS, 2L).get(20, TimeUnit.SECONDS))
                    .as(kind + ": the waiter gets the lock Redis has free").isTrue();
            assertThat(admin.commands().hkeys(name)).as(kind).containsExactly(a.getId() + ":2");
            assertThatThrownBy(() -> held.unlockAsync(1L).get(5, TimeUnit.SECONDS)).as(kind)
                    .hasCauseInstanceOf(IllegalMonitorStateException.class);
            plain.unlockAsync(2L).get(5, TimeUnit.SECONDS);
        }
    }

    /** Defect 7: an unlock through another kind of lock object stranded this client's queued waiters. */
    @Test
    void anUnlockThroughAnotherKindWakesTheLocalWaiters() throws Exception {
        LockClient client = clients.open();
        for (String kind : List.of("spin", "fenced")) {
            String name = Clients.uniqueName("other-kind-unlock");
            RLock plain = client.getLock(name);
            RLock other = kind.equals("spin") ? client.getSpinLock(name) : client.getFencedLock(name);
            plain.lockAsync(-1, TimeUnit.MILLISECONDS, 1L).get(5, TimeUnit.SECONDS);
            // a wait far longer than the bound below: a stranded waiter times the get out
            CompletableFuture<Boolean> waiter = plain.tryLockAsync(60, -1, TimeUnit.SECONDS, 2L);
            other.unlockAsync(1L).get(5, TimeUnit.SECONDS);
            assertThat(waiter.get(20, TimeUnit.SECONDS)).as(kind).isTrue();
            other.unlockAsync(2L).get(5, TimeUnit.SECONDS);
            assertThat(plain.tryLockAsync(0, -1, TimeUnit.MILLISECONDS, 3L).get(5, TimeUnit.SECONDS)).as(kind).isTrue();
            plain.unlockAsync(3L).get(5, TimeUnit.SECONDS);
        }
    }

    /** Defect 8: a re-entry right after an acquisition queued behind itself: the holder was not yet recorded. */
    @Test
    void aReentryRightAfterAnAcquisitionDoesNotWaitOnItself() throws Exception {
        LockClient client = clients.open();
        RLock lock = client.getLock(Clients.uniqueName("reentry-race"));
        for (int round = 0; round < 100; round++) {
            long owner = 1000 + round;
            boolean reentered = lock.lockAsync(-1, TimeUnit.MILLISECONDS, owner)
                    .thenCompose(v -> lock.tryLockAsync(10, -1, TimeUnit.SECONDS, owner))
                    .get(30, TimeUnit.SECONDS);
            assertThat(reentered).as("round %d", round).isTrue();
            lock.unlockAsync(owner).get(5, TimeUnit.SECONDS);
            lock.unlockAsync(owner).get(5, TimeUnit.SECONDS);
        }
        assertThat(lock.isLocked()).isFalse();
    }

    /** Defect 10: a timed-out acquisition's clean-up could wait as long again as the call itself. */
    @Test
    void aStalledAcquisitionEndsWithinItsWaitPlusTwiceTheCommandTimeout() throws Exception {
        try (RedisServerProcess server = RedisServerProcess.start()) {
            LockClient client = clients.open(c -> c.redisUri(server.uri()).commandTimeout(Duration.ofMillis(1_000)));
            RLock lock = client.getLock(Clients.uniqueName("stalled"));
            lock.lockAsync(30, TimeUnit.SECONDS, 1L).get(5, TimeUnit.SECONDS);
            server.pause();
            try {
                long start = System.nanoTime();
                try {
                    lock.tryLock(500, TimeUnit.MILLISECONDS);
                } catch (PadlockException expected) {
                    // a stalled Redis may well say so; the bound is what counts
                }
                long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                // the contract's bound is 2.5 s; the defect took as long again (5 s). Timeouts this long leave
                // 1.5 s of slack for a busy machine below the defect
                assertThat(tookMillis).as("wait 500 ms + 2 x 1 s, with slack for a busy machine").isLessThan(4_000);
            } finally {
                server.resume();
            }
        }
    }

    /**
     * Found reading the grant path after the fault soak's seed 629: a grant message for an owner
     * of this client that no longer waits (one that came late, after a long pause, for a hold
     * whose lease had ended) is passed on, and passing it on made that owner this client's holder,
     * forgetting the owner that held the lock. The holder's re-entry then queued behind its own
     * successor as a new hold, which took the count back to one.
     */
    @Test
    void aLateGrantForAnOwnerThatNoLongerWaitsLeavesTheHolderAlone(RedisAdmin admin) throws Exception {
        LockClient client = clients.open();
        String name = Clients.uniqueName("late-grant");
        RLock lock = client.getLock(name);
        lock.lockAsync(30, TimeUnit.SECONDS, 1L).get(5, TimeUnit.SECONDS);
        CompletableFuture<Void> successor = lock.lockAsync(30, TimeUnit.SECONDS, 2L);
        String grants = dev.padlock.spi.LockKeys.grantChannelPrefix(name) + client.getId();
        await().atMost(HANG).pollInterval(Duration.ofMillis(10))
                .until(() -> admin.commands().pubsubNumsub(grants).getOrDefault(grants, 0L) >= 1);
        long looks = admin.commandStats().calls("hget") + admin.commandStats().calls("hdel");
        // a grant to owner 99's place, written long ago: its field is gone from Redis
        assertThat(admin.commands().publish(grants, "99:1:" + name)).isOne();
        // passed on: a release of owner 99's field, which finds none (lock_release's HINCRBY and
        // HDEL, or lock_handoff's HGET)
        await().atMost(HANG).until(() -> admin.commandStats().calls("hget") + admin.commandStats().calls("hdel") > looks);

        lock.lockAsync(30, TimeUnit.SECONDS, 1L).get(5, TimeUnit.SECONDS); // a re-entry
        assertThat(admin.commands().hget(name, client.getId() + ":1")).as("the holder's count").isEqualTo("2");
        lock.unlockAsync(1L).get(5, TimeUnit.SECONDS);
        assertThat(lock.isHeldByThread(1L)).as("one hold remains").isTrue();
        await().during(Duration.ofMillis(200)).atMost(HANG).until(() -> !successor.isDone());
        lock.unlockAsync(1L).get(5, TimeUnit.SECONDS);
        successor.get(5, TimeUnit.SECONDS);
        lock.unlockAsync(2L).get(5, TimeUnit.SECONDS);
    }

    /** Defect 11: every timed local wait left an uncancellable task behind for its whole wait. */
    @Test
    void timedLocalWaitsLeaveNothingScheduled() throws Exception {
        PadlockClient client = (PadlockClient) clients.open();
        RLock lock = client.getLock(Clients.uniqueName("timed-waits"));
        AtomicInteger acquired = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        try {
            List<CompletableFuture<Void>> loops = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                loops.add(CompletableFuture.runAsync(() -> {
                    try {
                        while (System.nanoTime() < end) {
                            if (lock.tryLock(10, TimeUnit.MINUTES)) {
                                acquired.incrementAndGet();
                                lock.unlock();
                            }
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }, pool));
            }
            CompletableFuture.allOf(loops.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        assertThat(acquired.get()).isPositive();
        await().atMost(HANG).untilAsserted(() -> {
            assertThat(client.scheduledTasks()).as("the watchdog's next round only").isLessThanOrEqualTo(1);
            assertThat(client.localQueues()).isZero();
        });
    }
}
