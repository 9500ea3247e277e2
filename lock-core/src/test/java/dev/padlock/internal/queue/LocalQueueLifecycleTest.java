package dev.padlock.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.internal.acquire.PendingAcquire;
import dev.padlock.internal.protocol.LockProtocol.Attempt;
import dev.padlock.internal.protocol.LockProtocol.Release;
import dev.padlock.internal.protocol.LockProtocol.ReleaseOutcome;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How an acquisition through the local queue ends at each state it can be in (queued, waiting for
 * the same owner's earlier one, head, one-shot), what {@code close()} does to waiters, and the
 * bound on local state: a queue exists only while its lock is held or waited on.
 */
class LocalQueueLifecycleTest {
    private static final long FOREVER = QueueFixture.FOREVER;

    private final QueueFixture f = new QueueFixture();
    private final RecordingLock lock = f.lock;

    @AfterEach
    void close() {
        f.close();
    }

    // ---- cancel and timeout, state by state

    @Test
    void aQueuedOwnerCancelledLeavesWithoutSendingAnything() {
        f.holds(1);
        PendingAcquire queued = f.acquire(2, FOREVER);

        queued.result().cancel(false);

        lock.sentNothing();
        assertThat(queued.settled()).isDone();
        f.release(1);
        lock.next("release", 1); // nobody left to hand to
    }

    @Test
    void aQueuedOwnerWhoseWaitRanOutIsSkippedByTheHandOff() {
        f.holds(1);
        PendingAcquire impatient = f.acquire(2, 50);
        PendingAcquire patient = f.acquire(3, FOREVER);

        f.timer.advance(50); // within the chain's 100 ms

        assertThat(impatient.result()).isCompletedWithValue(false);
        f.release(1);
        lock.next("handoff", 1).answer(ReleaseOutcome.RELEASED);
        assertThat(patient.result()).isCompletedWithValue(true);
    }

    @Test
    void aHeadCancelledWhileItsClaimIsOutGivesTheLockBackWhenTheClaimLands() {
        PendingAcquire head = f.acquire(1, FOREVER);
        var claim = lock.next("claim", 1);

        head.result().cancel(false);
        claim.answer(Attempt.ACQUIRED);

        lock.next("release", 1).answer(new Release(ReleaseOutcome.RELEASED, 0));
        assertThat(head.settled()).isDone();
        assertThat(f.queues.size()).isZero();
    }

    @Test
    void aHeadWhoseWaitRanOutAnswersFalseAndTheFirstQueuedOwnerBecomesHead() {
        PendingAcquire head = f.acquire(1, 100);
        lock.next("claim", 1).answer(Attempt.notAcquired(5_000));
        lock.next("claim", 1).answer(Attempt.notAcquired(5_000)); // subscribed: it parks
        PendingAcquire queued = f.acquire(2, FOREVER);
        f.timer.advance(100);

        f.channels.fire(); // woken, its wait is spent after this attempt
        lock.next("claim", 1).answer(Attempt.notAcquired(5_000));

        assertThat(head.result()).isCompletedWithValue(false);
        lock.next("claim", 2).answer(Attempt.ACQUIRED);
        assertThat(queued.result()).isCompletedWithValue(true);
    }

    @Test
    void anAcquisitionWaitingForTheSameOwnersEarlierOneEndsFalseWhenItsWaitRunsOut() {
        PendingAcquire earlier = f.acquire(1, FOREVER);
        var claim = lock.next("claim", 1);
        PendingAcquire later = f.acquire(1, 100);

        f.timer.advance(100);

        assertThat(later.result()).isCompletedWithValue(false);
        claim.answer(Attempt.ACQUIRED);
        assertThat(earlier.result()).isCompletedWithValue(true);
        lock.sentNothing();
    }

    @Test
    void anAcquisitionWaitingForTheSameOwnersEarlierOneEndsWhenCancelled() {
        f.acquire(1, FOREVER);
        var claim = lock.next("claim", 1);
        PendingAcquire later = f.acquire(1, FOREVER);

        later.result().cancel(false);

        assertThat(later.settled()).isDone();
        claim.answer(Attempt.ACQUIRED);
        lock.sentNothing();
    }

    /**
     * Regression: an acquisition that waited for the same owner's earlier one and was cancelled left
     * its wait's timeout on the client's timer until the wait would have ended (an hour for a
     * one-hour {@code tryLock}), holding on to the ticket.
     */
    @Test
    void aCancelledAcquisitionWaitingForTheSameOwnersEarlierOneLeavesNoTimeoutBehind() {
        f.acquire(1, FOREVER);
        lock.next("claim", 1);
        int before = f.timer.pending();
        PendingAcquire later = f.acquire(1, 3_600_000);
        assertThat(f.timer.pending()).as("its wait's timeout").isEqualTo(before + 1);

        later.result().cancel(false);

        assertThat(f.timer.pending()).isEqualTo(before);
    }

    @Test
    void aOneShotAcquisitionWhileAnotherOwnerHoldsAsksRedisOnceAndNeverQueues() {
        f.holds(1);

        PendingAcquire once = f.acquire(2, 0);

        lock.next("claim", 2).answer(Attempt.notAcquired(5_000));
        assertThat(once.result()).isCompletedWithValue(false);
        assertThat(f.queues.describe()).contains("queued 0");
    }

    // ---- close

    @Test
    void closeFailsEveryQueuedOwnerWithIllegalStateException() {
        f.holds(1);
        PendingAcquire second = f.acquire(2, FOREVER);
        PendingAcquire third = f.acquireSpin(3, 60_000);

        f.queues.close();

        for (PendingAcquire queued : new PendingAcquire[] {second, third}) {
            assertThat(queued.result()).failsWithin(java.time.Duration.ZERO)
                    .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                    .havingCause().isInstanceOf(IllegalStateException.class)
                    .withMessageContaining("closed");
            assertThat(queued.settled()).isDone();
        }
        lock.sentNothing();
    }

    @Test
    void closeGivesTheChannelsBackAndCancelsTheQueuesTimers() {
        f.holdsFixed(1, 50_000); // its lease end is watched
        f.acquireSpin(2, FOREVER); // polled for
        f.acquire(3, 60_000); // times out, and watches the channel
        assertThat(f.channels.watchers).isNotEmpty();

        f.queues.close();

        assertThat(f.channels.watchers).isEmpty();
        assertThat(f.timer.pending()).as("the watchdog's round only").isOne();
    }

    @Test
    void anOwnerEndedByCloseDoesNotAlsoTimeOut() {
        f.holds(1);
        PendingAcquire queued = f.acquire(2, 100);

        f.queues.close();
        f.timer.advance(200);

        assertThat(queued.result()).isCompletedExceptionally();
    }

    // ---- the bound on local state

    @Test
    void aQueueIsRemovedOnceItsHolderReleasesItsLastHold() {
        f.holds(1);
        assertThat(f.queues.size()).isOne();

        f.release(1);
        lock.next("release", 1).answer(new Release(ReleaseOutcome.RELEASED, 1));

        assertThat(f.queues.size()).isZero();
    }

    @Test
    void aQueueStaysWhileHoldsRemain() {
        f.holds(1);
        f.acquire(1, FOREVER);
        lock.next("acquire", 1).answer(Attempt.ACQUIRED);

        f.release(1);
        lock.next("release", 1).answer(new Release(ReleaseOutcome.STILL_HELD, 0));

        assertThat(f.queues.size()).isOne();
    }

    @Test
    void aFailedOneShotAcquisitionLeavesNoQueueBehind() {
        PendingAcquire once = f.acquire(1, 0);

        lock.next("claim", 1).answer(Attempt.notAcquired(5_000));

        assertThat(once.result()).isCompletedWithValue(false);
        assertThat(f.queues.size()).isZero();
    }

    @Test
    void aClaimRedisRefusedWithAnErrorLeavesNoQueueBehind() {
        PendingAcquire head = f.acquire(1, FOREVER);

        lock.next("claim", 1).fail(new IllegalStateException("ERR wrong kind of value"));

        assertThat(head.result()).isCompletedExceptionally();
        assertThat(f.queues.size()).isZero();
    }

    @Test
    void aReleaseByAnOwnerThatHoldsNothingLeavesNoQueueBehind() {
        CompletableFuture<ReleaseOutcome> unlock = f.release(5);

        lock.next("release", 5).answer(new Release(ReleaseOutcome.NOT_HELD, 0));

        assertThat(unlock).isCompletedWithValue(ReleaseOutcome.NOT_HELD);
        assertThat(f.queues.size()).isZero();
    }

    @Test
    void eachLockNameHasItsOwnQueueOnlyWhileInUse() {
        RecordingLock other = new RecordingLock("orders:2");
        f.holds(1);
        PendingAcquire elsewhere = f.acquire(other, 1, FOREVER);
        other.next("claim", 1).answer(Attempt.ACQUIRED);
        assertThat(elsewhere.result()).isCompletedWithValue(true);
        assertThat(f.queues.size()).isEqualTo(2);

        f.release(1);
        lock.next("release", 1).answer(new Release(ReleaseOutcome.RELEASED, 1));
        f.queues.release(other, f.services, 1);
        other.next("release", 1).answer(new Release(ReleaseOutcome.RELEASED, 1));

        assertThat(f.queues.size()).isZero();
    }

    @Test
    void anIdleQueueIsKeptForItsLocksNextAcquisition() {
        f.holds(1);
        f.release(1);
        lock.next("release", 1).answer(new Release(ReleaseOutcome.RELEASED, 1));
        assertThat(f.queues.size()).as("in use").isZero();
        assertThat(f.queues.mapped()).as("kept").isOne();

        f.holds(2);
        f.timer.runDue();

        assertThat(f.queues.mapped()).isOne();
        assertThat(f.queues.size()).isOne();
    }

    @Test
    void anIdleQueueDisplacedFromItsSlotLeavesTheMap() {
        RecordingLock other = new RecordingLock(nameInTheSameIdleSlotAs(lock.name()));
        f.holds(1);
        f.release(1);
        lock.next("release", 1).answer(new Release(ReleaseOutcome.RELEASED, 1));

        PendingAcquire elsewhere = f.acquire(other, 1, FOREVER);
        other.next("claim", 1).answer(Attempt.ACQUIRED);
        assertThat(elsewhere.result()).isCompletedWithValue(true);
        f.timer.runDue();
        assertThat(f.queues.mapped()).as("the first is idle and the second in use: both stay").isEqualTo(2);

        f.queues.release(other, f.services, 1);
        other.next("release", 1).answer(new Release(ReleaseOutcome.RELEASED, 1));
        f.timer.runDue();

        assertThat(f.queues.mapped()).isOne();
        assertThat(f.queues.size()).isZero();
    }

    @Test
    void aClientKeepsAtMostOneIdleQueuePerSlot() {
        for (int i = 0; i < 100; i++) {
            RecordingLock name = new RecordingLock("orders:many:" + i);
            PendingAcquire held = f.acquire(name, 1, FOREVER);
            name.next("claim", 1).answer(Attempt.ACQUIRED);
            assertThat(held.result()).isCompletedWithValue(true);
            f.queues.release(name, f.services, 1);
            name.next("release", 1).answer(new Release(ReleaseOutcome.RELEASED, 1));
        }
        f.timer.runDue();

        assertThat(f.queues.mapped()).isLessThanOrEqualTo(LocalQueues.IDLE_SLOTS);
        assertThat(f.queues.size()).isZero();
    }

    /** A lock name other than {@code name} whose idle queue would take the same slot. */
    static String nameInTheSameIdleSlotAs(String name) {
        int slot = name.hashCode() & (LocalQueues.IDLE_SLOTS - 1);
        for (int i = 0; ; i++) {
            String candidate = name + ":neighbour:" + i;
            if ((candidate.hashCode() & (LocalQueues.IDLE_SLOTS - 1)) == slot) {
                return candidate;
            }
        }
    }

    @Test
    void describeShowsEachQueuesHolderAndQueuedOwners() {
        f.holds(1);
        f.acquire(2, FOREVER);

        assertThat(f.queues.describe()).contains("orders:1", "holder 1", "head none", "queued 1");
    }

    @Test
    void everyAcquisitionRedisConfirmsIsCounted() {
        long before = f.queues.confirmations();
        f.holds(1);
        f.acquire(1, FOREVER);
        lock.next("acquire", 1).answer(Attempt.ACQUIRED);
        f.acquire(2, FOREVER);
        f.release(1);
        // two holds: the first unlock cannot hand the lock over
        lock.next("release", 1).answer(new Release(ReleaseOutcome.STILL_HELD, 0, false));
        f.release(1);
        lock.next("handoff", 1).answer(ReleaseOutcome.RELEASED);

        assertThat(f.queues.confirmations() - before).as("claim, re-entry, hand-off").isEqualTo(3);
    }
}
