package dev.padlock.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.RedisUnavailableException;
import dev.padlock.internal.acquire.PendingAcquire;
import dev.padlock.internal.protocol.LockProtocol.Attempt;
import dev.padlock.internal.protocol.LockProtocol.Release;
import dev.padlock.internal.protocol.LockProtocol.ReleaseOutcome;
import dev.padlock.internal.queue.RecordingLock.Call;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Releases through the local queue ({@link LocalRelease}): hand-offs within the budget, the global
 * release once it is spent, the yield after it, and a successor whose hand-off did not happen.
 */
class LocalQueueHandOffTest {
    private static final long FOREVER = QueueFixture.FOREVER;

    private final QueueFixture f = new QueueFixture();
    private final RecordingLock lock = f.lock;

    @AfterEach
    void close() {
        f.close();
    }

    @Test
    void aHandOffAnsweredAfterTheSuccessorsLeaseCouldHaveRunOutIsClaimedAgainBySuccessor() {
        f.holds(1);
        PendingAcquire second = f.acquire(2, FOREVER);
        f.release(1);
        Call handOff = lock.next("handoff", 1);
        f.timer.advance(QueueFixture.LEASE); // read after a pause as long as the lease it set

        handOff.answer(ReleaseOutcome.RELEASED);

        assertThat(second.result()).as("not on that reply alone").isNotDone();
        lock.next("claim", 2).answer(Attempt.ACQUIRED); // a claim finds its field, or takes the lock anew
        assertThat(second.result()).isCompletedWithValue(true);
    }

    @Test
    void afterThe32ndHandOffInARowTheNextReleaseIsGlobal() {
        f.holds(1);
        List<PendingAcquire> queued = new ArrayList<>();
        for (long owner = 2; owner <= HandOffBudget.MAX_LOCAL_HAND_OFFS + 2; owner++) {
            queued.add(f.acquire(owner, FOREVER));
        }

        for (long owner = 1; owner <= HandOffBudget.MAX_LOCAL_HAND_OFFS; owner++) {
            f.release(owner);
            Call handOff = lock.next("handoff", owner);
            assertThat(handOff.to).isEqualTo(owner + 1);
            handOff.answer(ReleaseOutcome.RELEASED);
            assertThat(queued.get((int) owner - 1).result()).isCompletedWithValue(true);
        }

        long last = HandOffBudget.MAX_LOCAL_HAND_OFFS + 1;
        f.release(last);
        lock.next("release", last).answer(new Release(ReleaseOutcome.RELEASED, 1));
        lock.next("claim", last + 1).answer(Attempt.ACQUIRED);
        assertThat(queued.get(queued.size() - 1).result()).isCompletedWithValue(true);
    }

    @Test
    void aChainThatRan100MillisecondsEndsWithAGlobalReleaseAfterWhichTheFirstQueuedOwnerClaims() {
        f.holds(1);
        PendingAcquire second = f.acquire(2, FOREVER);
        f.timer.advance(TimeUnit.NANOSECONDS.toMillis(HandOffBudget.MAX_LOCAL_CHAIN_NANOS));

        CompletableFuture<ReleaseOutcome> unlock = f.release(1);

        lock.next("release", 1).answer(new Release(ReleaseOutcome.RELEASED, 1));
        assertThat(unlock).isCompletedWithValue(ReleaseOutcome.RELEASED);
        assertThat(second.result()).as("not handed over: it asks Redis like everyone else").isNotDone();
        lock.next("claim", 2).answer(Attempt.ACQUIRED);
        assertThat(second.result()).isCompletedWithValue(true);
        assertThat(second.handedOver()).isFalse();
    }

    @Test
    void anOwnerThatTookTheLockFromRedisStartsAFreshChain() {
        f.holds(1);
        f.acquire(2, FOREVER);
        PendingAcquire third = f.acquire(3, FOREVER);
        f.timer.advance(TimeUnit.NANOSECONDS.toMillis(HandOffBudget.MAX_LOCAL_CHAIN_NANOS));
        f.release(1);
        lock.next("release", 1).answer(new Release(ReleaseOutcome.RELEASED, 1));
        lock.next("claim", 2).answer(Attempt.ACQUIRED);

        f.release(2);

        Call handOff = lock.next("handoff", 2);
        assertThat(handOff.to).isEqualTo(3);
        handOff.answer(ReleaseOutcome.RELEASED);
        assertThat(third.result()).isCompletedWithValue(true);
        assertThat(third.handedOver()).isTrue();
    }

    @Test
    void afterAGlobalReleaseOtherClientsHeardTheNextLocalOwnerYieldsBeforeItAsks() {
        f.holds(1);
        PendingAcquire second = f.acquire(2, FOREVER);
        f.timer.advance(TimeUnit.NANOSECONDS.toMillis(HandOffBudget.MAX_LOCAL_CHAIN_NANOS));
        f.release(1);

        lock.next("release", 1).answer(new Release(ReleaseOutcome.RELEASED, 3)); // this client and two others

        lock.sentNothing();
        f.timer.advance(1); // the shortest yield, 200 us, with no time on the manual clock for the round trip
        lock.next("claim", 2).answer(Attempt.ACQUIRED);
        assertThat(second.result()).isCompletedWithValue(true);
    }

    @Test
    void afterAGlobalReleaseOnlyThisClientHeardTheNextLocalOwnerAsksAtOnce() {
        f.holds(1);
        f.acquire(2, FOREVER);
        f.timer.advance(TimeUnit.NANOSECONDS.toMillis(HandOffBudget.MAX_LOCAL_CHAIN_NANOS));
        f.release(1);

        lock.next("release", 1).answer(new Release(ReleaseOutcome.RELEASED, 1));

        lock.next("claim", 2);
    }

    @Test
    void aGlobalReleaseWithoutReplyLetsTheNextLocalOwnerAskAtOnce() {
        f.holds(1);
        f.acquire(2, FOREVER);
        f.timer.advance(TimeUnit.NANOSECONDS.toMillis(HandOffBudget.MAX_LOCAL_CHAIN_NANOS));
        CompletableFuture<ReleaseOutcome> unlock = f.release(1);

        lock.next("release", 1).fail(new RedisUnavailableException("connection reset", null));

        assertThat(unlock).isCompletedExceptionally();
        lock.next("claim", 2); // a claim: it finds out whether the release landed
    }

    @Test
    void aSuccessorThatGaveUpWhileTheHandOffWasOutGivesTheLockBack() {
        f.holds(1);
        PendingAcquire second = f.acquire(2, FOREVER);
        f.release(1);
        Call handOff = lock.next("handoff", 1);

        second.result().cancel(false);
        handOff.answer(ReleaseOutcome.RELEASED);

        assertThat(second.settled()).as("not until the lock is given back").isNotDone();
        lock.next("release", 2).answer(new Release(ReleaseOutcome.RELEASED, 1));
        assertThat(second.settled()).isDone();
        assertThat(f.queues.size()).isZero();
    }

    @Test
    void aSuccessorWhoseWaitRanOutWhileHoldsRemainedGivesUp() {
        f.holds(1);
        PendingAcquire second = f.acquire(2, 100);
        f.release(1);
        Call handOff = lock.next("handoff", 1);
        f.timer.advance(150); // claimed by the hand-off: its own timeout does nothing

        handOff.answer(ReleaseOutcome.STILL_HELD);

        assertThat(second.result()).isCompletedWithValue(false);
        f.release(1);
        lock.next("release", 1); // nobody left to hand to
    }

    @Test
    void aSuccessorPutBackAfterHoldsRemainedIsStillFirst() {
        f.holds(1);
        f.acquire(2, FOREVER);
        f.acquire(3, FOREVER);
        f.release(1);
        lock.next("handoff", 1).answer(ReleaseOutcome.STILL_HELD);

        f.release(1);

        assertThat(lock.next("handoff", 1).to).isEqualTo(2);
    }

    @Test
    void aHandOffRefusedWhileAnotherHeadRunsQueuesTheSuccessorFirstAgain() {
        f.holds(1);
        PendingAcquire second = f.acquire(2, FOREVER);
        f.acquire(3, FOREVER);
        CompletableFuture<ReleaseOutcome> unlock = f.release(1);
        Call handOff = lock.next("handoff", 1);
        f.channels.fire(); // the lock may be free: the first still queued asks
        Call claim = lock.next("claim", 3);

        handOff.answer(ReleaseOutcome.NOT_HELD);
        claim.answer(Attempt.ACQUIRED);

        assertThat(unlock).isCompletedWithValue(ReleaseOutcome.NOT_HELD);
        assertThat(second.result()).isNotDone();
        f.release(3);
        Call next = lock.next("handoff", 3);
        assertThat(next.to).isEqualTo(2);
        next.answer(ReleaseOutcome.RELEASED);
        assertThat(second.result()).isCompletedWithValue(true);
    }

    /**
     * Regression: a successor queued first again after a refused hand-off, while another head ran,
     * was left without the unlock channel's watch (given back when the queue was empty for a
     * moment), so an unlock message no longer made it ask Redis.
     */
    @Test
    void aSuccessorQueuedFirstAgainAfterARefusedHandOffStillHearsTheUnlockChannel() {
        f.holds(1);
        f.acquire(2, FOREVER);
        f.acquire(3, FOREVER);
        f.release(1);
        Call handOff = lock.next("handoff", 1);
        f.channels.fire();
        Call claim = lock.next("claim", 3);
        handOff.answer(ReleaseOutcome.NOT_HELD);
        claim.answer(Attempt.ACQUIRED);

        assertThat(f.channels.watchedChannels()).containsExactly("channel");
        f.channels.fire(); // another client's force unlock, say
        lock.next("claim", 2);
    }

    /**
     * Regression: a successor queued first again because holds remained, after the queue had gone
     * empty while its hand-off was out, was left without the unlock channel's watch.
     */
    @Test
    void aSuccessorQueuedFirstAgainAfterHoldsRemainedStillHearsTheUnlockChannel() {
        f.holds(1);
        PendingAcquire second = f.acquire(2, FOREVER);
        f.release(1);
        Call handOff = lock.next("handoff", 1);
        f.acquire(3, FOREVER).result().cancel(false); // the queue is empty for a moment

        handOff.answer(ReleaseOutcome.STILL_HELD);

        assertThat(second.result()).isNotDone();
        assertThat(f.channels.watchedChannels()).containsExactly("channel");
        f.channels.fire();
        lock.next("claim", 2);
    }

    @Test
    void aSuccessorThatGaveUpBeforeItsHandOffWentUnansweredHasThatHandOffGivenBack() {
        f.holds(1);
        PendingAcquire second = f.acquire(2, FOREVER);
        f.acquire(3, FOREVER);
        f.release(1);
        Call handOff = lock.next("handoff", 1);
        f.channels.fire();
        lock.next("claim", 3);
        second.result().cancel(false);

        handOff.fail(new RedisUnavailableException("timed out", null));

        assertThat(second.settled()).isDone();
        lock.next("abandon", 2); // the hand-off may have landed: its field must not stay
    }
}
