package dev.padlock.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.internal.acquire.HeldBefore;
import dev.padlock.internal.acquire.PendingAcquire;
import dev.padlock.internal.base.WaitBudget;
import dev.padlock.internal.lease.LeaseMillis;
import dev.padlock.internal.protocol.LockProtocol.Attempt;
import dev.padlock.internal.protocol.LockProtocol.Release;
import dev.padlock.internal.protocol.LockProtocol.ReleaseOutcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Who the local queue believes holds the lock, and what corrects it: re-entries of the holder,
 * lost leases, force unlocks, the end of a fixed lease, unlock messages, polls for spin waiters
 * and grants.
 */
class LocalQueueViewTest {
    private static final long LEASE = QueueFixture.LEASE;
    private static final long FOREVER = QueueFixture.FOREVER;

    private final QueueFixture f = new QueueFixture();
    private final RecordingLock lock = f.lock;

    @AfterEach
    void close() {
        f.close();
    }

    // ---- re-entries

    @Test
    void everyReentryOfTheHolderIsItsOwnHoldOnRedis() {
        f.holds(1);

        PendingAcquire first = f.acquire(1, FOREVER);
        PendingAcquire second = f.acquire(1, FOREVER);

        lock.next("acquire", 1).answer(Attempt.ACQUIRED);
        lock.next("acquire", 1).answer(Attempt.ACQUIRED);
        assertThat(first.result()).isCompletedWithValue(true);
        assertThat(second.result()).isCompletedWithValue(true);
    }

    @Test
    void aReentryGoesToRedisAtOnceWhileOthersQueue() {
        f.holds(1);
        PendingAcquire queued = f.acquire(2, FOREVER);

        PendingAcquire again = f.acquire(1, FOREVER);

        lock.next("acquire", 1).answer(Attempt.ACQUIRED);
        assertThat(again.result()).isCompletedWithValue(true);
        assertThat(queued.result()).isNotDone();
        lock.sentNothing();
    }

    @Test
    void aReleaseThatLeavesHoldsKeepsTheHolder() {
        f.holds(1);
        f.acquire(1, FOREVER);
        lock.next("acquire", 1).answer(Attempt.ACQUIRED);
        f.release(1);
        lock.next("release", 1).answer(new Release(ReleaseOutcome.STILL_HELD, 0));

        PendingAcquire again = f.acquire(1, FOREVER);

        lock.next("acquire", 1).answer(Attempt.ACQUIRED);
        assertThat(again.result()).isCompletedWithValue(true);
    }

    /**
     * A release left a count on Redis that the owner was never told of (a re-entry given up in
     * doubt that landed, a count a lost hold left): its holder stayed, renewed, and every later
     * acquisition of the owner re-entered on top of that count, which outlived all of them. What
     * remains is no hold: it is not renewed, and the next acquisition claims.
     */
    @Test
    void aReleaseThatLeavesOnlyACountNobodyWasToldOfForgetsTheHolderSoTheNextAcquisitionClaims() {
        f.holds(1);
        f.release(1);
        lock.next("release", 1).answer(new Release(ReleaseOutcome.STILL_HELD, 0));

        PendingAcquire again = f.acquire(1, FOREVER);

        lock.next("claim", 1).answer(Attempt.ACQUIRED);
        assertThat(again.result()).isCompletedWithValue(true);
    }

    @Test
    void aQueuedAcquisitionOfAnOwnerRedisConfirmsAsHolderRunsAsAReentry() {
        f.holds(1);
        PendingAcquire queued = f.acquire(2, FOREVER);
        f.queues.onHeldElsewhere(lock.localKey(), 2); // owner 2 took the same hash through a fair lock

        PendingAcquire reentry = f.acquire(2, FOREVER);
        lock.next("acquire", 2).answer(Attempt.ACQUIRED);

        assertThat(reentry.result()).isCompletedWithValue(true);
        lock.next("acquire", 2).answer(Attempt.ACQUIRED); // the queued one: its own hold, counted on Redis
        assertThat(queued.result()).isCompletedWithValue(true);
    }

    @Test
    void aHeadWhoseOwnerHoldsThroughAFairLockReentersRatherThanClaims() {
        f.holds(1);
        f.acquire(2, FOREVER);
        f.queues.onHeldElsewhere(lock.localKey(), 2);

        f.channels.fire();

        lock.next("acquire", 2); // a claim would count its holds as one
    }

    @Test
    void anOwnerThatReleasedElsewhereClaimsAgain() {
        f.queues.onHeldElsewhere(lock.localKey(), 2);
        PendingAcquire reentry = f.acquire(2, FOREVER);
        lock.next("acquire", 2).answer(Attempt.ACQUIRED);
        assertThat(reentry.result()).isCompletedWithValue(true);

        f.queues.onReleasedElsewhere(lock.localKey(), 2);

        assertThat(f.queues.size()).as("it held nothing more: forgotten, and the queue idle").isZero();
        f.acquire(2, FOREVER);
        lock.next("claim", 2);
    }

    // ---- corrections

    @Test
    void aReleaseAnsweredAfterTheSameOwnersReentryWasConfirmedDoesNotForgetIt() {
        f.holds(1);
        f.release(1);
        RecordingLock.Call lateRelease = lock.next("release", 1);
        PendingAcquire reentry = f.acquire(1, FOREVER);
        lock.next("acquire", 1).answer(Attempt.ACQUIRED); // confirmed after the release was sent

        lateRelease.answer(new Release(ReleaseOutcome.RELEASED, 1));

        assertThat(reentry.result()).isCompletedWithValue(true);
        f.acquire(1, FOREVER);
        lock.next("acquire", 1); // still the holder: a claim would reset its count to one
    }

    @Test
    void aLostLeaseOfAnOwnerThatIsNotTheHolderChangesNothing() {
        f.holds(1);
        PendingAcquire queued = f.acquire(2, FOREVER);

        f.queues.onLeaseLost(lock.localKey(), 3);

        lock.sentNothing();
        assertThat(queued.result()).isNotDone();
        f.acquire(1, FOREVER);
        lock.next("acquire", 1);
    }

    @Test
    void aLostLeaseWithNobodyQueuedRetiresTheQueue() {
        f.holds(1);

        f.queues.onLeaseLost(lock.localKey(), 1);

        assertThat(f.queues.size()).isZero();
    }

    @Test
    void aForceUnlockWithNobodyQueuedRetiresTheQueue() {
        f.holds(1);

        f.queues.onForceUnlocked(lock.localKey(), f.queues.confirmations());

        assertThat(f.queues.size()).isZero();
    }

    @Test
    void aForceUnlockOrLostLeaseOfALockWithoutQueueIsIgnored() {
        f.queues.onForceUnlocked(lock.localKey(), f.queues.confirmations());
        f.queues.onLeaseLost(lock.localKey(), 1);

        assertThat(f.queues.size()).isZero();
        lock.sentNothing();
    }

    @Test
    void aForceUnlockWhileAnOwnerAsksRedisStartsNoSecondHead() {
        PendingAcquire head = f.acquire(1, FOREVER);
        f.acquire(2, FOREVER);

        f.queues.onForceUnlocked(lock.localKey(), f.queues.confirmations());

        lock.next("claim", 1).answer(Attempt.ACQUIRED);
        assertThat(head.result()).isCompletedWithValue(true);
        lock.sentNothing();
    }

    @Test
    void anUnlockMessageWhileAnOwnerAsksRedisStartsNoSecondHead() {
        f.acquire(1, FOREVER);
        f.acquire(2, FOREVER);

        f.channels.fire();

        lock.next("claim", 1);
        lock.sentNothing();
    }

    @Test
    void aWatchdogLeaseHolderIsNotForgottenHoweverLongItHolds() {
        f.holds(1);
        PendingAcquire queued = f.acquire(2, FOREVER);

        f.timer.advance(3 * LEASE);

        lock.sentNothing();
        assertThat(queued.result()).isNotDone();
    }

    @Test
    void theEndOfAFixedLeaseReentryOfARenewedHoldDoesNotEndTheHold() {
        f.holds(1); // a watchdog lease: renewed
        f.holdCount.set(2);
        PendingAcquire queued = f.acquire(2, FOREVER);
        PendingAcquire fixed = f.queues.acquire(lock, f.services, false, 1, 50, FOREVER, false);
        lock.next("acquire", 1).answer(Attempt.ACQUIRED); // the TTL is 50 ms: renewed at once
        assertThat(fixed.result()).isCompletedWithValue(true);

        f.timer.advance(60);

        lock.sentNothing();
        assertThat(queued.result()).isNotDone();
    }

    @Test
    void theEndOfAFixedLeaseThatWasTheOwnersOnlyHoldLetsTheNextOwnerAsk() {
        f.holds(1); // its renewal goes on until the watchdog learns the hold is single
        f.queues.onLeaseLost(lock.localKey(), 1); // Redis lost it behind the owner's back...
        PendingAcquire fixed = f.queues.acquire(lock, f.services, false, 1, 50, FOREVER, false);
        lock.next("claim", 1).answer(Attempt.ACQUIRED); // ...and it took it again with a fixed lease
        assertThat(fixed.result()).isCompletedWithValue(true);
        PendingAcquire queued = f.acquire(2, FOREVER);

        f.timer.advance(60);

        lock.next("claim", 2).answer(Attempt.ACQUIRED);
        assertThat(queued.result()).isCompletedWithValue(true);
    }

    @Test
    void aLongerFixedLeaseReentryKeepsTheHolderUntilItsOwnEnd() {
        f.holdsFixed(1, 50);
        PendingAcquire queued = f.acquire(2, FOREVER);
        f.timer.advance(10);
        f.queues.acquire(lock, f.services, false, 1, 200, FOREVER, false);
        lock.next("acquire", 1).answer(Attempt.ACQUIRED);

        f.timer.advance(50);
        lock.sentNothing();

        f.timer.advance(151);
        lock.next("claim", 2).answer(Attempt.ACQUIRED);
        assertThat(queued.result()).isCompletedWithValue(true);
    }

    /**
     * A re-entry through the fair lock never shortens the shared hash's TTL (issue 37, "never
     * shorter"): a shorter lease set that way leaves the first lease (20 s) watched, and a longer
     * one moves the end on. (Before, a fair re-entry re-armed the hash to its own lease, and the view
     * watched that from then: the model-based test's seed 7 in issue 25.)
     */
    @Test
    void aShorterLeaseSetThroughTheFairLockKeepsTheLongerEndWatched() {
        f.holdsFixed(1, 20_000);
        PendingAcquire queued = f.acquire(2, FOREVER);
        f.timer.advance(10);

        f.queues.onHeldElsewhere(lock.localKey(), 1, 300); // a fair re-entry with a 300 ms lease
        f.timer.advance(301);
        lock.sentNothing();

        f.queues.onHeldElsewhere(lock.localKey(), 1, 30_000); // and one with a longer lease
        f.timer.advance(20_000);
        lock.sentNothing();

        f.timer.advance(10_002);
        lock.next("claim", 2).answer(Attempt.ACQUIRED);
        assertThat(queued.result()).isCompletedWithValue(true);
    }

    /** A re-entry with a shorter fixed lease leaves the holder's longer end watched: Redis keeps it. */
    @Test
    void aShorterReentryKeepsTheLongerEndWatched() {
        f.holdsFixed(1, 20_000);
        f.queues.acquire(lock, f.services, false, 1, 300, FOREVER, false);
        lock.next("acquire", 1).answer(Attempt.ACQUIRED);
        PendingAcquire queued = f.acquire(2, FOREVER);

        f.timer.advance(301);
        lock.sentNothing();

        f.timer.advance(19_700);
        lock.next("claim", 2).answer(Attempt.ACQUIRED);
        assertThat(queued.result()).isCompletedWithValue(true);
    }

    @Test
    void theEndOfAFixedLeaseWithNobodyQueuedRetiresTheQueue() {
        f.holdsFixed(1, 50);
        assertThat(f.queues.size()).isOne();

        f.timer.advance(51);

        assertThat(f.queues.size()).isZero();
        assertThat(f.timer.pending()).as("the watchdog's round only").isOne();
    }

    // ---- spin waiters

    @Test
    void aSpinWaiterQueuedBehindAHolderPollsRedisAfterOneMillisecond() {
        f.holds(1);
        PendingAcquire spinner = f.acquireSpin(2, FOREVER);
        assertThat(f.channels.watchers).as("a spin waiter hears no channel").isEmpty();
        lock.sentNothing();

        f.timer.advance(1);

        lock.next("claim", 2).answer(Attempt.ACQUIRED);
        assertThat(spinner.result()).isCompletedWithValue(true);
    }

    @Test
    void aPubSubWaiterQueuedBehindAHolderDoesNotPoll() {
        f.holds(1);
        f.acquire(2, FOREVER);

        f.timer.advance(1_000);

        lock.sentNothing();
    }

    @Test
    void pollingStopsWhenTheLastSpinWaiterLeaves() {
        f.holds(1);
        PendingAcquire spinner = f.acquireSpin(2, FOREVER);

        spinner.result().cancel(false);

        assertThat(f.timer.pending()).as("the watchdog's round and its check for silence only").isEqualTo(2);
        f.timer.advance(1_000);
        lock.sentNothing();
    }

    // ---- grants

    @Test
    void aGrantBeforeTheHeadsAcquisitionStartedIsHandedToIt() {
        RecordingLock granting = new RecordingLock("orders:2", true);
        LocalQueue queue = new LocalQueue(granting.localKey(), f.services, f.queues);
        Ticket head = new Ticket(granting, false, 1, LeaseMillis.WATCHDOG, LEASE, WaitBudget.of(FOREVER, f.timer), 42);
        synchronized (queue) {
            assertThat(queue.enter(head, false)).isEqualTo(Admission.Entry.RUN_AS_HEAD);
        }

        assertThat(queue.onGranted(granting, 1, 42)).isTrue();
        queue.run(head, true);

        assertThat(head.result()).isCompletedWithValue(true);
        granting.sentNothing();
    }

    @Test
    void aGrantToTheHolderIsLeftToIt() {
        RecordingLock granting = new RecordingLock("orders:2", true);
        PendingAcquire holder = f.acquire(granting, 1, FOREVER);
        granting.next("claim", 1).answer(Attempt.ACQUIRED);
        assertThat(holder.result()).isCompletedWithValue(true);

        f.queues.onGranted(granting, 1, 999, f.services);

        granting.sentNothing();
        f.acquire(granting, 1, FOREVER);
        granting.next("acquire", 1); // still the holder
    }

    /**
     * A grant read late (after a long pause) for an owner that no longer waits, while another
     * owner holds here: its field, if any, is released alone, and the holder stays the holder. It
     * used to become the holder for the pass-on, so the real holder's re-entry queued behind its
     * own successor.
     */
    @Test
    void aLateGrantForAnOwnerThatNoLongerWaitsLeavesTheHolderAlone() {
        RecordingLock granting = new RecordingLock("orders:2", true);
        PendingAcquire holder = f.acquire(granting, 1, FOREVER);
        granting.next("claim", 1).answer(Attempt.ACQUIRED);
        assertThat(holder.result()).isCompletedWithValue(true);
        PendingAcquire successor = f.acquire(granting, 2, FOREVER);

        f.queues.onGranted(granting, 99, 7, f.services);

        granting.next("release", 99).answer(new Release(ReleaseOutcome.NOT_HELD, 0)); // no hand-off to 2
        granting.sentNothing();
        PendingAcquire reentry = f.acquire(granting, 1, FOREVER);
        granting.next("acquire", 1).answer(Attempt.ACQUIRED); // still the holder: a re-entry
        assertThat(reentry.result()).isCompletedWithValue(true);
        assertThat(successor.result()).isNotDone();
    }

    /**
     * Simulator seed 5: the owner left its place, a grant to that place put its field, and the
     * owner's multi lock claimed the lock in one call, round the view, finding that field. The grant's
     * message, read after, was passed on by releasing the field: the multi lock's hold went with it.
     */
    @Test
    void aLateGrantForAnOwnerHoldingRoundTheViewByAMultiLocksOneCallIsNotPassedOn() {
        RecordingLock granting = new RecordingLock("orders:2", true);
        f.queues.batchCallStarted(granting.localKey(), 1);
        f.queues.onBatchHeld(granting.localKey(), 1, LeaseMillis.WATCHDOG);

        f.queues.onGranted(granting, 1, 7, f.services);

        granting.sentNothing();
        assertThat(f.queues.heldBesides(granting.localKey(), 1)).as("the multi lock's hold, counted").isEqualTo(1);
    }

    /**
     * What a give-back in doubt compares Redis's count with: the owner's holds through the view and
     * those round it (a multi lock's one call), added up; not yet while a call that moves them is in
     * flight; none once Redis said the owner's field is gone.
     */
    @Test
    void theOwnersHoldsThroughTheViewAndRoundItAreCountedTogether() {
        RecordingLock lock = new RecordingLock("orders:3", true);
        PendingAcquire held = f.acquire(lock, 1, FOREVER);
        lock.next("claim", 1).answer(Attempt.ACQUIRED);
        assertThat(held.result()).isCompletedWithValue(true);

        f.queues.batchCallStarted(lock.localKey(), 1);
        assertThat(f.queues.heldBesides(lock.localKey(), 1)).isEqualTo(HeldBefore.NOT_YET);
        f.queues.onBatchHeld(lock.localKey(), 1, LeaseMillis.WATCHDOG);
        assertThat(f.queues.heldBesides(lock.localKey(), 1)).isEqualTo(2);
        f.queues.batchCallStarted(lock.localKey(), 1);
        f.queues.batchCallEnded(lock.localKey(), 1, -1);
        assertThat(f.queues.heldBesides(lock.localKey(), 1)).isEqualTo(1);
        assertThat(f.queues.batchHolds(lock.localKey(), 1)).isZero();

        f.queues.batchCallStarted(lock.localKey(), 1);
        f.queues.onBatchHeld(lock.localKey(), 1, LeaseMillis.WATCHDOG);
        f.queues.onLeaseLost(lock.localKey(), 1);
        assertThat(f.queues.heldBesides(lock.localKey(), 1)).as("no field of the owner left").isZero();
    }

    @Test
    void aRetiredQueueSendsAGrantBackToTheNamesQueue() {
        RecordingLock granting = new RecordingLock("orders:2", true);
        LocalQueue queue = new LocalQueue(granting.localKey(), f.services, f.queues);
        queue.giveUp(new Ticket(granting, false, 1, LeaseMillis.WATCHDOG, LEASE, WaitBudget.of(FOREVER, f.timer), 1)); // idle: kept
        RecordingLock sameSlot = new RecordingLock(LocalQueueLifecycleTest.nameInTheSameIdleSlotAs(granting.name()), true);
        LocalQueue displacing = new LocalQueue(sameSlot.localKey(), f.services, f.queues);
        displacing.giveUp(new Ticket(sameSlot, false, 1, LeaseMillis.WATCHDOG, LEASE, WaitBudget.of(FOREVER, f.timer), 2));
        f.timer.runDue(); // the displaced queue retires

        assertThat(queue.onGranted(granting, 1, 1)).isFalse();
        granting.sentNothing();
    }
}
