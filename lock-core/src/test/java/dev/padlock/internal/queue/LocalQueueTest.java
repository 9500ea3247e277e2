package dev.padlock.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.RedisUnavailableException;
import dev.padlock.internal.acquire.PendingAcquire;
import dev.padlock.internal.base.ManualTimer;
import dev.padlock.internal.lease.LeaseMillis;
import dev.padlock.internal.lock.LockServices;
import dev.padlock.internal.protocol.LockProtocol.Attempt;
import dev.padlock.internal.protocol.LockProtocol.Release;
import dev.padlock.internal.protocol.LockProtocol.ReleaseOutcome;
import dev.padlock.internal.queue.RecordingLock.Call;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The local queue's state machine alone ({@link QueueFixture}): a lock kind that records each call
 * it would send to Redis and answers only when the test says so, a manual timer, and unlock
 * channels the test fires by hand. The rule under test: an owner is told it holds only after an
 * answer that put or found its field, and every answer that contradicts the queue's view corrects
 * it.
 */
class LocalQueueTest {
    private static final long LEASE = QueueFixture.LEASE;
    private static final long FOREVER = QueueFixture.FOREVER;

    private final QueueFixture f = new QueueFixture();
    private final ManualTimer timer = f.timer;
    private final RecordingLock lock = f.lock;
    private final HandFiredChannels channels = f.channels;
    private final LocalQueues queues = f.queues;
    private final LockServices services = f.services;

    @AfterEach
    void close() {
        f.close();
    }

    @Test
    void aFirstAcquisitionIsAClaimAndHoldsOnlyOnceRedisAnswers() {
        PendingAcquire first = acquire(1, FOREVER);

        Call claim = lock.next("claim", 1);
        assertThat(first.result()).isNotDone();
        claim.answer(Attempt.ACQUIRED);
        assertThat(first.result()).isCompletedWithValue(true);
    }

    @Test
    void anOwnerQueuedBehindAHolderSendsNothingAndWatchesTheChannel() {
        holds(1);

        PendingAcquire second = acquire(2, FOREVER);

        assertThat(second.result()).isNotDone();
        assertThat(lock.calls).isEmpty();
        assertThat(channels.watchers).hasSize(1);
    }

    /**
     * LockModelTest seed 7, sequence 63: a Redisson force unlock of this client's holder, while
     * nobody of this client queued (so no message was heard), left a later waiter queued behind a
     * holder Redis no longer had, for the rest of its 20 s fixed lease.
     */
    @Test
    void stuckWaiterBehindAHolderForceUnlockedBeforeAnyoneQueued() {
        channels.confirmsWatches = true;
        f.holdsFixed(1, 20_000);
        PendingAcquire second = acquire(2, FOREVER);

        timer.runDue(); // subscribed: the first owner queued behind the holder asks whether it still holds
        lock.next("confirm", 1).answer(Attempt.notAcquired(-2));

        lock.next("claim", 2).answer(Attempt.ACQUIRED);
        assertThat(second.result()).as("got the lock Redis had free, long before the holder's lease ends")
                .isCompletedWithValue(true);
    }

    @Test
    void theHolderCheckFindingTheHolderLeavesTheQueuedOwnerWaitingForItsRelease() {
        channels.confirmsWatches = true;
        holds(1);
        PendingAcquire second = acquire(2, FOREVER);
        PendingAcquire third = acquire(3, FOREVER);

        timer.runDue();
        lock.next("confirm", 1).answer(Attempt.ACQUIRED);
        lock.sentNothing(); // one check for the queue that formed, none for the owner queued after

        CompletableFuture<ReleaseOutcome> released = release(1);
        lock.next("handoff", 1).answer(ReleaseOutcome.RELEASED);
        assertThat(released).isCompletedWithValue(ReleaseOutcome.RELEASED);
        assertThat(second.result()).isCompletedWithValue(true);
        assertThat(third.result()).isNotDone();
    }

    @Test
    void aHolderCheckAnsweredAfterTheHolderReleasedDoesNotForgetTheNextHolder() {
        channels.confirmsWatches = true;
        holds(1);
        PendingAcquire second = acquire(2, FOREVER);
        timer.runDue();
        Call check = lock.next("confirm", 1);

        CompletableFuture<ReleaseOutcome> released = release(1);
        lock.next("handoff", 1).answer(ReleaseOutcome.RELEASED);
        assertThat(second.result()).isCompletedWithValue(true);
        check.answer(Attempt.notAcquired(-2)); // of owner 1, which no longer holds

        PendingAcquire reentry = acquire(2, FOREVER);
        lock.next("acquire", 2).answer(Attempt.ACQUIRED);
        assertThat(reentry.result()).as("owner 2 is still the holder: a re-entry").isCompletedWithValue(true);
        assertThat(released).isDone();
    }

    @Test
    void aSuccessorIsToldItHoldsOnlyWhenTheHandOffIsAnswered() {
        holds(1);
        PendingAcquire second = acquire(2, FOREVER);

        CompletableFuture<ReleaseOutcome> unlock = release(1);
        Call handOff = lock.next("handoff", 1);
        assertThat(handOff.to).isEqualTo(2);
        assertThat(second.result()).as("sent, not answered").isNotDone();

        handOff.answer(ReleaseOutcome.RELEASED);
        assertThat(second.result()).isCompletedWithValue(true);
        assertThat(unlock).isCompletedWithValue(ReleaseOutcome.RELEASED);
        assertThat(channels.watchers).as("nobody queues any more").isEmpty();
    }

    @Test
    void holdsThatRemainPutTheSuccessorBackInLine() {
        holds(1);
        PendingAcquire second = acquire(2, FOREVER);

        release(1);
        lock.next("handoff", 1).answer(ReleaseOutcome.STILL_HELD);
        assertThat(second.result()).isNotDone();

        release(1);
        lock.next("handoff", 1).answer(ReleaseOutcome.RELEASED);
        assertThat(second.result()).isCompletedWithValue(true);
    }

    @Test
    void aHandOffThatFoundTheHolderGoneMakesTheSuccessorClaimOnRedis() {
        holds(1);
        PendingAcquire second = acquire(2, FOREVER);

        CompletableFuture<ReleaseOutcome> unlock = release(1);
        lock.next("handoff", 1).answer(ReleaseOutcome.NOT_HELD);

        assertThat(unlock).isCompletedWithValue(ReleaseOutcome.NOT_HELD);
        assertThat(second.result()).isNotDone();
        lock.next("claim", 2).answer(Attempt.ACQUIRED);
        assertThat(second.result()).isCompletedWithValue(true);
    }

    @Test
    void aHandOffWhoseReplyWasLostMakesTheSuccessorClaimWhichFindsOutWhetherItLanded() {
        holds(1);
        PendingAcquire second = acquire(2, FOREVER);

        CompletableFuture<ReleaseOutcome> unlock = release(1);
        lock.next("handoff", 1).fail(new RedisUnavailableException("connection reset", null));

        assertThat(unlock).isCompletedExceptionally();
        assertThat(second.result()).isNotDone();
        lock.next("claim", 2).answer(Attempt.ACQUIRED); // the hand-off had landed: the claim finds the field
        assertThat(second.result()).isCompletedWithValue(true);
    }

    @Test
    void aReentryByTheHolderGoesToRedisAsAReentryNotAClaim() {
        holds(1);

        PendingAcquire again = acquire(1, FOREVER);

        lock.next("acquire", 1).answer(Attempt.ACQUIRED);
        assertThat(again.result()).isCompletedWithValue(true);
    }

    /**
     * Issue 37, case 1: a re-entry whose reply was lost is confirmed by the owner's hold count, not by
     * its field, which the outer hold keeps there: Redis counting only the outer hold means it did
     * not land, and it is sent again.
     */
    @Test
    void aReentryWhoseReplyWasLostIsConfirmedByTheHoldCountNotByTheOuterHold() {
        holds(1);
        PendingAcquire again = acquire(1, FOREVER);
        lock.next("acquire", 1).fail(new RedisUnavailableException("connection reset", null));

        timer.advance(10);
        Call confirm = lock.next("confirmReentry", 1);
        assertThat(confirm.to).as("the holds it has besides the re-entry").isEqualTo(1);
        confirm.answer(Attempt.notAcquired(-2)); // Redis counts 1: the outer hold alone

        assertThat(again.result()).as("not on the outer hold").isNotDone();
        lock.next("acquire", 1).answer(Attempt.ACQUIRED);
        assertThat(again.result()).isCompletedWithValue(true);
    }

    /**
     * Issue 37 (simulator replay -2111750717056226044:60, a read lock): a re-entry cancelled while
     * its reply was lost landed later; nobody gave it back, and its count outlived every unlock.
     * Now Redis is asked by hold count, and the hold is given back if it landed.
     */
    @Test
    void aReentryGivenUpInDoubtIsGivenBackIfRedisCountsIt() {
        holds(1);
        PendingAcquire again = acquire(1, FOREVER);
        lock.next("acquire", 1).fail(new RedisUnavailableException("timed out", null));
        again.result().cancel(false);

        timer.advance(10);
        Call confirm = lock.next("confirmReentry", 1);
        assertThat(confirm.to).isEqualTo(1);
        PendingAcquire next = acquire(1, FOREVER);
        assertThat(lock.calls).as("the owner's next acquisition waits for the give-back").isEmpty();
        confirm.answer(Attempt.ACQUIRED); // it had landed: Redis counts 2

        lock.next("release", 1).answer(new Release(ReleaseOutcome.STILL_HELD, 0, false));
        lock.next("acquire", 1).answer(Attempt.ACQUIRED);
        assertThat(next.result()).isCompletedWithValue(true);
    }

    @Test
    void aLostReentryOfAnOwnerHoldingTwiceCountsBothHoldsAndAnInnerReleaseCountsOneOff() {
        holds(1);
        acquire(1, FOREVER);
        lock.next("acquire", 1).answer(Attempt.ACQUIRED);
        acquire(1, FOREVER);
        lock.next("acquire", 1).answer(Attempt.ACQUIRED);
        release(1);
        lock.next("release", 1).answer(new Release(ReleaseOutcome.STILL_HELD, 0, false));

        PendingAcquire again = acquire(1, FOREVER);
        lock.next("acquire", 1).fail(new RedisUnavailableException("timed out", null));
        timer.advance(10);

        assertThat(lock.next("confirmReentry", 1).to).isEqualTo(2);
        assertThat(again.result()).isNotDone();
    }

    @Test
    void aLostReentryIsConfirmedOnlyOnceTheOwnersReleaseInFlightIsAnswered() {
        holds(1);
        PendingAcquire again = acquire(1, FOREVER);
        Call first = lock.next("acquire", 1);
        CompletableFuture<ReleaseOutcome> inner = release(1); // sent by the owner's other future
        Call release = lock.next("release", 1);
        first.fail(new RedisUnavailableException("timed out", null));

        timer.advance(10);
        lock.sentNothing(); // the release in flight could move the count
        release.answer(new Release(ReleaseOutcome.STILL_HELD, 0, false));
        timer.advance(20);

        // the release left a hold only because the re-entry had landed: the owner's told hold is
        // gone, so the re-entry finds out as a first hold does, and holds what is there once
        lock.next("claim", 1).answer(Attempt.ACQUIRED);
        assertThat(again.result()).isCompletedWithValue(true);
        assertThat(inner).isCompletedWithValue(ReleaseOutcome.STILL_HELD);
    }

    /**
     * Simulator seed 606 (a red lock): a re-entry given up in doubt landed, and the owner's unlock
     * then said "holds remain". The queue still counted one hold, so the give-back found nothing
     * above it, and the landed hold was renewed for ever. The remaining hold is no told one.
     */
    @Test
    void aReleaseThatLeavesOnlyAGivenUpReentryCountsNoHoldSoTheGiveBackTakesIt() {
        holds(1);
        PendingAcquire again = acquire(1, FOREVER);
        Call first = lock.next("acquire", 1);
        again.result().cancel(false);
        release(1);
        Call release = lock.next("release", 1);
        first.fail(new RedisUnavailableException("timed out", null));
        timer.advance(10);
        lock.sentNothing(); // the release in flight could move the count

        release.answer(new Release(ReleaseOutcome.STILL_HELD, 0, false));
        timer.advance(1_000);

        Call confirm = lock.next("confirmReentry", 1);
        assertThat(confirm.to).isZero();
        confirm.answer(Attempt.ACQUIRED);
        lock.next("release", 1);
    }

    /**
     * Simulator seed 4 (a multi lock): the roll-back of an owner's second acquisition unlocked
     * it, unconfirmed, while the owner held on through its first. The queue forgot the owner, so its
     * next re-entry was a claim that merged both holds into one count. One hold of several, its
     * unlock unconfirmed, leaves the others held, and Redis's count says whether to give it back.
     */
    @Test
    void anUnconfirmedUnlockOfOneHoldOfTwoKeepsTheOtherAndGivesItBackIfRedisStillCountsIt() {
        holds(1);
        acquire(1, FOREVER);
        lock.next("acquire", 1).answer(Attempt.ACQUIRED);

        CompletableFuture<ReleaseOutcome> inner = release(1);
        lock.next("release", 1).fail(new RedisUnavailableException("timed out", null));
        assertThat(inner).isCompletedExceptionally();
        PendingAcquire again = acquire(1, FOREVER);
        timer.advance(10);

        Call confirm = lock.next("confirmReentry", 1);
        assertThat(confirm.to).as("the hold the owner keeps").isEqualTo(1);
        lock.sentNothing(); // the re-entry waits for the give-back
        confirm.answer(Attempt.ACQUIRED); // the unlock had not landed: Redis counts 2
        lock.next("release", 1).answer(new Release(ReleaseOutcome.STILL_HELD, 0, false));

        lock.next("acquire", 1).answer(Attempt.ACQUIRED); // a re-entry, not a claim
        assertThat(again.result()).isCompletedWithValue(true);
    }

    /**
     * Simulator seed 3 (a read lock): two unlocks in doubt of an owner holding three times each
     * asked Redis's count at once, each found one hold more than the owner kept, and each gave one
     * back: the hold the owner kept went too. Give-backs of one owner go one after the other.
     */
    @Test
    void twoUnconfirmedUnlocksGiveBackOneAfterTheOther() {
        holds(1);
        acquire(1, FOREVER);
        lock.next("acquire", 1).answer(Attempt.ACQUIRED);
        acquire(1, FOREVER);
        lock.next("acquire", 1).answer(Attempt.ACQUIRED);
        release(1);
        lock.next("release", 1).fail(new RedisUnavailableException("timed out", null));
        Call first = lock.next("confirmReentry", 1);
        release(1);
        lock.next("release", 1).fail(new RedisUnavailableException("timed out", null));
        lock.sentNothing(); // the second give-back waits for the first
        first.answer(Attempt.ACQUIRED); // the owner's count moved meanwhile: asked again

        timer.advance(10);
        Call again = lock.next("confirmReentry", 1);
        assertThat(again.to).isEqualTo(1);
        again.answer(Attempt.ACQUIRED); // Redis counts 2: one unlock did not land
        lock.next("release", 1).answer(new Release(ReleaseOutcome.STILL_HELD, 0, false));

        Call second = lock.next("confirmReentry", 1);
        assertThat(second.to).isEqualTo(1);
        second.answer(Attempt.notAcquired(1_000));
        lock.sentNothing();
    }

    /**
     * Simulator seed 303 (a fenced lock): the give-back of a re-entry given up in doubt did not
     * reach Redis at its first try; at the next, the owner's next re-entry (waiting for it) counted
     * as "another acquisition in flight", so the give-back stopped and its landed hold stayed for
     * ever. An acquisition that has sent nothing cannot have moved the count.
     */
    @Test
    void aGiveBackTriedAgainIsNotStoppedByTheNextAcquisitionWaitingForIt() {
        holds(1);
        PendingAcquire again = acquire(1, FOREVER);
        lock.next("acquire", 1).fail(new RedisUnavailableException("timed out", null));
        again.result().cancel(false);
        timer.advance(10);
        lock.next("confirmReentry", 1).fail(new RedisUnavailableException("timed out", null));
        PendingAcquire next = acquire(1, FOREVER);
        lock.sentNothing();

        timer.advance(1_000); // the give-back's next try

        Call confirm = lock.next("confirmReentry", 1);
        assertThat(confirm.to).isEqualTo(1);
        confirm.answer(Attempt.ACQUIRED); // it had landed: Redis counts 2
        lock.next("release", 1).answer(new Release(ReleaseOutcome.STILL_HELD, 0, false));
        lock.next("acquire", 1).answer(Attempt.ACQUIRED);
        assertThat(next.result()).isCompletedWithValue(true);
    }

    @Test
    void aQueuedOwnerGivesUpWhenItsWaitEndsOnTheTimerAndTheHolderThenReleasesOnRedis() {
        holds(1);
        PendingAcquire second = acquire(2, 100);

        timer.advance(100);

        assertThat(second.result()).isCompletedWithValue(false);
        assertThat(lock.calls).isEmpty();
        release(1);
        lock.next("release", 1).answer(new Release(ReleaseOutcome.RELEASED, 1));
        assertThat(queues.size()).as("idle: retired").isZero();
        assertThat(timer.pending()).as("nothing left scheduled but the watchdog's round").isOne();
    }

    @Test
    void theEndOfTheHoldersFixedLeaseLetsTheFirstQueuedOwnerAsk() throws InterruptedException {
        PendingAcquire first = queues.acquire(lock, services, false, 1, 50, TimeUnit.SECONDS.toNanos(1), false);
        lock.next("claim", 1).answer(Attempt.ACQUIRED);
        assertThat(first.result()).isCompletedWithValue(true);
        PendingAcquire second = acquire(2, FOREVER);

        timer.advance(60); // the holder's fixed lease ends

        lock.next("claim", 2).answer(Attempt.ACQUIRED);
        assertThat(second.result()).isCompletedWithValue(true);
    }

    @Test
    void anUnlockMessageSendsTheFirstQueuedOwnerToRedisWithoutForgettingTheHolder() {
        holds(1);
        PendingAcquire second = acquire(2, FOREVER);

        channels.fire();

        lock.next("claim", 2).answer(Attempt.notAcquired(5_000));
        lock.next("claim", 2).answer(Attempt.notAcquired(5_000)); // after subscribing: then it parks
        assertThat(second.result()).isNotDone();
        PendingAcquire reentry = acquire(1, FOREVER);
        lock.next("acquire", 1).answer(Attempt.ACQUIRED);
        assertThat(reentry.result()).as("still the holder: a re-entry, not queued behind itself")
                .isCompletedWithValue(true);
    }

    @Test
    void aForceUnlockByThisClientForgetsTheHolder() {
        holds(1);
        PendingAcquire second = acquire(2, FOREVER);

        queues.onForceUnlocked(lock.localKey(), queues.confirmations());

        lock.next("claim", 2).answer(Attempt.ACQUIRED);
        assertThat(second.result()).isCompletedWithValue(true);
    }

    /**
     * Simulator seed 16: this client's force unlock went unanswered (the client paused past the
     * command timeout) but had deleted the lock. The fixed-lease holder it confirmed before stayed
     * the holder in this client's view, and an owner that queued later waited behind it, sending
     * nothing, while the lock stood free on Redis. Such a holder is a guess: queued owners ask Redis.
     */
    @Test
    void afterAForceUnlockInDoubtQueuedOwnersAskRedisInsteadOfWaitingForTheHolder() {
        holds(1);
        PendingAcquire queuedBefore = acquire(2, FOREVER);
        assertThat(lock.calls).as("queued behind the holder").isEmpty();
        long sentAt = queues.confirmations();

        queues.onForceUnlockInDoubt(lock.localKey(), sentAt);

        lock.next("claim", 2).answer(Attempt.ACQUIRED);
        assertThat(queuedBefore.result()).isCompletedWithValue(true);
    }

    @Test
    void anOwnerThatQueuesAfterAForceUnlockInDoubtAsksRedis() {
        holds(1);
        queues.onForceUnlockInDoubt(lock.localKey(), queues.confirmations());

        PendingAcquire later = acquire(2, FOREVER);

        lock.next("claim", 2).answer(Attempt.notAcquired(5_000));
        lock.next("claim", 2).answer(Attempt.notAcquired(5_000)); // after subscribing: then it parks
        assertThat(later.result()).as("the holder was still there: it waits on Redis").isNotDone();
        PendingAcquire reentry = acquire(1, FOREVER);
        lock.next("acquire", 1).answer(Attempt.ACQUIRED);
        assertThat(reentry.result()).as("the holder re-enters, not claims").isCompletedWithValue(true);
    }

    @Test
    void aForceUnlockInDoubtSentBeforeTheHolderWasConfirmedLeavesItTheHolder() {
        long sentAt = queues.confirmations();
        holds(1);

        queues.onForceUnlockInDoubt(lock.localKey(), sentAt);
        PendingAcquire second = acquire(2, FOREVER);

        assertThat(lock.calls).as("queued behind the holder").isEmpty();
        assertThat(second.result()).isNotDone();
    }

    /**
     * Regression (model test): a release answered late (after a NOSCRIPT retry, say) made the queue
     * forget a holder Redis had confirmed after the release was sent; that holder's re-entry then
     * went out as a claim and reset its hold count to 1.
     */
    @Test
    void aReleaseAnsweredAfterAnotherOwnerWasConfirmedDoesNotForgetIt() {
        holds(1);
        CompletableFuture<ReleaseOutcome> unlock = release(1);
        Call lateRelease = lock.next("release", 1);
        PendingAcquire second = acquire(2, 0); // one-shot: straight to Redis
        lock.next("claim", 2).answer(Attempt.ACQUIRED);
        assertThat(second.result()).isCompletedWithValue(true);

        lateRelease.answer(new Release(ReleaseOutcome.RELEASED, 1));

        assertThat(unlock).isCompletedWithValue(ReleaseOutcome.RELEASED);
        PendingAcquire reentry = acquire(2, FOREVER);
        lock.next("acquire", 2).answer(Attempt.ACQUIRED);
        assertThat(reentry.result()).isCompletedWithValue(true);
    }

    @Test
    void aForceUnlockAnsweredAfterAnOwnerWasConfirmedDoesNotForgetIt() {
        long sentAt = queues.confirmations(); // the force unlock is sent now, answered later
        holds(1);

        queues.onForceUnlocked(lock.localKey(), sentAt);

        PendingAcquire reentry = acquire(1, FOREVER);
        lock.next("acquire", 1).answer(Attempt.ACQUIRED);
        assertThat(reentry.result()).isCompletedWithValue(true);
    }

    /**
     * Seed 29 ({@code 3412611232299192298:60}, found with the async bound on): a re-entry was sent,
     * the watchdog's renewal sent before it found the field gone (a force unlock) and the owner was
     * told it lost the lock, then the re-entry answered "acquired": it had made a new hold. Told
     * "held" at once, the owner heard the loss after it and took that hold as lost too; nobody
     * unlocked it, and the owner's next hold renewed it for ever. News of a hold older than a loss
     * told since is confirmed again first, so the hold it tells counts from after the loss.
     */
    @Test
    void aHoldAnsweredAfterALossToldSinceItsAttemptWasSentIsConfirmedAgainBeforeItIsTold() {
        holds(1);
        PendingAcquire reentry = acquire(1, FOREVER);
        Call attempt = lock.next("acquire", 1);
        f.renewalFinds.set(0);
        timer.advance(LEASE / 3); // the watchdog's renewal, sent before the re-entry ran, finds nothing

        attempt.answer(Attempt.ACQUIRED);

        assertThat(reentry.result()).as("not told on news older than the loss").isNotDone();
        lock.next("renew", 1).answer(true);
        assertThat(reentry.result()).isCompletedWithValue(true);
    }

    @Test
    void aLostLeaseForgetsTheHolder() {
        holds(1);
        PendingAcquire second = acquire(2, FOREVER);

        queues.onLeaseLost(lock.localKey(), 1);

        lock.next("claim", 2).answer(Attempt.ACQUIRED);
        assertThat(second.result()).isCompletedWithValue(true);
    }

    @Test
    void aClaimItsCallerGaveUpOnUnansweredIsGivenBackBeforeTheOwnersNextAcquisition() {
        PendingAcquire first = acquire(1, FOREVER);
        Call claim = lock.next("claim", 1);

        first.result().cancel(false);
        claim.fail(new RedisUnavailableException("timed out", null));

        Call giveBack = lock.next("abandon", 1);
        PendingAcquire next = acquire(1, FOREVER);
        assertThat(lock.calls).as("the next acquisition waits for the give-back").isEmpty();
        giveBack.answer(true);
        lock.next("claim", 1).answer(Attempt.ACQUIRED);
        assertThat(next.result()).isCompletedWithValue(true);
    }

    /**
     * Found reading the hand-off path after the fault soak's seed 629: a successor whose wait ended
     * while a hand-off to it went unanswered was told "not acquired" before the give-back of that
     * hand-off was registered. Told, its owner may acquire again at once, and the give-back, which
     * removes the owner's field whatever hold it is, could then remove the new hold.
     */
    @Test
    void aSuccessorWhoseWaitEndedDuringAnUnansweredHandOffIsToldAfterItsGiveBackIsRegistered() {
        holds(1);
        PendingAcquire second = acquire(2, 100);
        PendingAcquire third = acquire(3, FOREVER);
        AtomicReference<Object> pendingWhenTold = new AtomicReference<>();
        second.result().whenComplete((acquired, failure) ->
                pendingWhenTold.set(String.valueOf(services.abandonments().pending(lock, 2) != null)));

        release(1);
        Call handOff = lock.next("handoff", 1);
        assertThat(handOff.to).isEqualTo(2);
        channels.fire(); // an unlock message: the first queued owner becomes head while the hand-off is on its way
        Call headsClaim = lock.next("claim", 3);
        timer.advance(200); // the successor's wait ends
        assertThat(second.result()).as("claimed: it waits for the hand-off's answer").isNotDone();
        handOff.fail(new RedisUnavailableException("timed out", null));

        assertThat(second.result()).isCompletedWithValue(false);
        assertThat(pendingWhenTold).as("the give-back was registered when its caller was told").hasValue("true");
        Call giveBack = lock.next("abandon", 2);
        PendingAcquire next = acquire(2, FOREVER);
        assertThat(lock.calls).as("the owner's next acquisition waits for the give-back").isEmpty();
        giveBack.answer(true);
        lock.next("claim", 2);
        assertThat(next.result()).isNotDone();
        assertThat(third.result()).isNotDone();
        headsClaim.answer(Attempt.notAcquired(5_000));
    }

    // ---- grants between clients (issue 13)

    @Test
    void aGrantToTheWaitingHeadMakesItHoldWithoutAnotherAttempt() {
        RecordingLock granting = new RecordingLock("orders:2", true);
        PendingAcquire head = queues.acquire(granting, services, false, 1, LeaseMillis.WATCHDOG, FOREVER, false);
        Call inLine = waitsInLine(granting, 1);
        assertThat(inLine.to).as("its place nonce").isPositive();

        queues.onGranted(granting, 1, inLine.to, services);

        assertThat(head.result()).isCompletedWithValue(true);
        assertThat(granting.calls).as("no attempt: the grant message came from the call that put its field in")
                .isEmpty();
    }

    @Test
    void aLateGrantForAnEarlierWaitDoesNotGrantTheOwnersNextWait() throws Exception {
        RecordingLock granting = new RecordingLock("orders:2", true);
        Call firstPlace = waitsInLineAndGivesUp(granting, 1);
        PendingAcquire second = queues.acquire(granting, services, false, 1, LeaseMillis.WATCHDOG, FOREVER, false);
        Call secondPlace = waitsInLine(granting, 1);
        assertThat(secondPlace.to).isNotEqualTo(firstPlace.to);

        queues.onGranted(granting, 1, firstPlace.to, services);

        assertThat(second.result()).as("the message answered the first wait's place").isNotDone();
        assertThat(granting.calls).as("nor passed on: the owner's next claim finds the field if it is there")
                .isEmpty();
        queues.onGranted(granting, 1, secondPlace.to, services);
        assertThat(second.result()).isCompletedWithValue(true);
    }

    @Test
    void aGrantNobodyHereWaitsForIsPassedOn() throws Exception {
        RecordingLock granting = new RecordingLock("orders:2", true);
        Call place = waitsInLineAndGivesUp(granting, 1);

        queues.onGranted(granting, 1, place.to, services);

        Call passOn = granting.next("release", 1);
        passOn.answer(new Release(ReleaseOutcome.RELEASED, 0, true));
        assertThat(queues.size()).as("nothing left behind").isZero();
    }

    @Test
    void aGlobalReleaseWithOwnersQueuedPutsThisClientBackInLineForTheFirstOfThem() throws Exception {
        RecordingLock granting = new RecordingLock("orders:2", true);
        PendingAcquire holder = queues.acquire(granting, services, false, 1, LeaseMillis.WATCHDOG, FOREVER, false);
        granting.next("claim", 1).answer(Attempt.ACQUIRED);
        assertThat(holder.result()).isCompletedWithValue(true);
        PendingAcquire second = queues.acquire(granting, services, false, 2, LeaseMillis.WATCHDOG, FOREVER, false);
        timer.advance(TimeUnit.NANOSECONDS.toMillis(HandOffBudget.MAX_LOCAL_CHAIN_NANOS) + 5); // the budget ends

        queues.release(granting, services, 1);

        Call release = granting.next("release", 1);
        assertThat(release.to).as("back in line for the first queued owner").isEqualTo(2);
        release.answer(new Release(ReleaseOutcome.RELEASED, 0, true)); // granted to another client
        Call claim = granting.next("claim", 2);
        claim.answer(Attempt.notAcquired(5_000));
        assertThat(second.result()).isNotDone();
    }

    /**
     * Issue 37, case 10: a grant read after a pause was believed. The release that put this client
     * back in line was sent; the lock went to another client and then, while this client was paused
     * past the lease, to this one's place; reading the release's reply and then the grant after the
     * pause, the new acquisition timed the grant from its own start, not from that release's send.
     */
    @Test
    void aGrantToAPlaceARequeuingReleaseTookIsTimedFromThatReleasesSend() throws Exception {
        RecordingLock granting = new RecordingLock("orders:2", true);
        PendingAcquire holder = queues.acquire(granting, services, false, 1, LeaseMillis.WATCHDOG, FOREVER, false);
        granting.next("claim", 1).answer(Attempt.ACQUIRED);
        assertThat(holder.result()).isCompletedWithValue(true);
        PendingAcquire second = queues.acquire(granting, services, false, 2, 1_000, FOREVER, false);
        timer.advance(TimeUnit.NANOSECONDS.toMillis(HandOffBudget.MAX_LOCAL_CHAIN_NANOS) + 5); // the budget ends

        f.channels.subscribed = 2; // the lock is contended: the waiter's channels are subscribed already
        f.channels.sharesConfirmed = true;
        queues.release(granting, services, 1);
        Call release = granting.next("release", 1);
        timer.advance(2_000); // paused: the grant that follows may be older than its 1 s lease
        release.answer(new Release(ReleaseOutcome.RELEASED, 0, true)); // granted to another client, this one in line
        timer.advance(50); // the next owner's turn comes: it waits in line for the grant, sending nothing
        granting.sentNothing();
        queues.onGranted(granting, 2, granting.lastNextPlaceNonce, services);

        assertThat(second.result()).as("not on the grant alone").isNotDone();
        granting.next("renew", 2).answer(false); // its lease ran out: somebody else may hold
        assertThat(second.result()).isNotDone();
    }

    // ---- helpers

    /**
     * The head {@code owner} just started: its first claim fails, it subscribes, and its second
     * claim fails and takes a place in line (the returned call: its {@code to} is the place nonce).
     */
    private static Call waitsInLine(RecordingLock granting, long owner) {
        granting.next("claim", owner).answer(Attempt.notAcquired(5_000));
        Call place = granting.next("claim", owner);
        place.answer(Attempt.notAcquired(5_000));
        return place;
    }

    /** {@code owner} waits 50 ms in line, then its wait ends without the lock; its place call. */
    private Call waitsInLineAndGivesUp(RecordingLock granting, long owner) throws Exception {
        PendingAcquire acquisition = queues.acquire(granting, services, false, owner, LeaseMillis.WATCHDOG,
                TimeUnit.MILLISECONDS.toNanos(50), false);
        Call place = waitsInLine(granting, owner);
        timer.advance(60); // its wait ends; woken, its last claim fails: it gave up
        channels.fire();
        granting.next("claim", owner).answer(Attempt.notAcquired(5_000));
        assertThat(acquisition.result().get(2, TimeUnit.SECONDS)).isFalse();
        return place;
    }

    private PendingAcquire acquire(long owner, long waitMillis) {
        return f.acquire(owner, waitMillis);
    }

    private CompletableFuture<ReleaseOutcome> release(long owner) {
        return f.release(owner);
    }

    /** Owner {@code owner} acquires and Redis grants it. */
    private void holds(long owner) {
        f.holds(owner);
    }
}
