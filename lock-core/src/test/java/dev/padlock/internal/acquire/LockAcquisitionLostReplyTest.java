package dev.padlock.internal.acquire;

import static dev.padlock.internal.acquire.LockAcquisitionTest.failure;
import static dev.padlock.internal.acquire.LockAcquisitionTest.request;
import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.RedisUnavailableException;
import dev.padlock.internal.protocol.GrantKind;
import dev.padlock.internal.protocol.LockProtocol.Attempt;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Replies lost in a failure (a {@link RedisUnavailableException}): the wait loop finds out what
 * the call did, never guesses; it gives up only past its bound, and a claim it gives up while its
 * outcome is unknown is given back before the same owner acquires again.
 */
class LockAcquisitionLostReplyTest {
    private static final long FOREVER = LockAcquisition.FOREVER;
    /** Twice the command timeout: how long unanswered calls in a row may go on past the wait. */
    private static final long GRACE = 2 * AcquireFixture.COMMAND_TIMEOUT_MILLIS;

    private final AcquireFixture client = new AcquireFixture();
    private final RecordingProtocol lock = new RecordingProtocol("orders");

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    void aLostReplyIsFoundOutByAskingWhetherTheOwnersFieldIsThere() {
        LockAcquisition acquisition = start(FOREVER, false);

        lock.next("acquire").lose();

        assertThat(acquisition.lastUnanswered()).isInstanceOf(RedisUnavailableException.class);
        assertThat(client.millisUntilSent(lock, 1_000)).as("the first doubt pause").isEqualTo(10);
        lock.next("confirm").answer(Attempt.ACQUIRED);
        assertThat(acquisition.result()).isCompletedWithValue(true);
        assertThat(acquisition.lastUnanswered()).as("Redis answered").isNull();
    }

    @Test
    void aConfirmThatFindsNoFieldGoesOnWaitingWithAnotherAttempt() {
        LockAcquisition acquisition = start(FOREVER, false);
        lock.next("acquire").lose();
        client.timer.advance(10);

        lock.next("confirm").answer(Attempt.notAcquired(-2));

        RecordingProtocol.Call again = lock.next("acquire");
        assertThat(again.willWait).isTrue();
        assertThat(acquisition.result()).isNotDone();
    }

    @Test
    void aLostClaimIsFoundOutBySendingTheSameClaimAgain() {
        lock.claims();
        LockAcquisition acquisition = start(FOREVER, true);

        lock.next("claim").lose();
        client.timer.advance(10);

        lock.next("claim").answer(Attempt.ACQUIRED); // idempotent: holds once whether or not the first landed
        assertThat(acquisition.result()).isCompletedWithValue(true);
        assertThat(lock.calls()).isEmpty();
    }

    @Test
    void findingOutBacksOffFromTenToTwoHundredMillisWhileRedisDoesNotAnswer() {
        start(FOREVER, false);
        lock.next("acquire").lose();

        List<Long> pauses = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            pauses.add(client.millisUntilSent(lock, 1_000));
            lock.next("confirm").lose();
        }

        assertThat(pauses).containsExactly(10L, 20L, 40L, 80L, 160L, 200L, 200L);
    }

    @Test
    void anAnswerStartsTheDoubtBackOffAfresh() {
        start(FOREVER, false);
        lock.next("acquire").lose();
        client.timer.advance(10);
        lock.next("confirm").lose();
        client.timer.advance(20);
        lock.next("confirm").answer(Attempt.notAcquired(-2));

        lock.next("acquire").lose();

        assertThat(client.millisUntilSent(lock, 1_000)).isEqualTo(10);
    }

    @Test
    void anUnboundedWaitFailsOnlyAfterTwiceTheCommandTimeoutOfUnansweredCallsInARow() {
        LockAcquisition acquisition = start(FOREVER, false);

        long failedAfter = loseEveryCall(acquisition, 10_000);

        assertThat(failedAfter).isEqualTo(GRACE);
        assertThat(failure(acquisition)).isInstanceOf(RedisUnavailableException.class);
    }

    @Test
    void anAnswerBetweenLostRepliesStartsTheBoundAfresh() {
        LockAcquisition acquisition = start(FOREVER, false);
        lock.next("acquire").lose();
        client.timer.advance(1_500);
        lock.next("confirm").answer(Attempt.notAcquired(-2)); // answered: nothing is in doubt any more

        long failedAfter = loseEveryCall(acquisition, 10_000);

        assertThat(failedAfter).isEqualTo(GRACE);
    }

    @Test
    void aBoundedWaitRidesOutLostRepliesUntilItsWaitPlusTwiceTheCommandTimeout() {
        LockAcquisition acquisition = start(500, false);

        long failedAfter = loseEveryCall(acquisition, 10_000);

        assertThat(failedAfter).isEqualTo(500 + GRACE);
        assertThat(failure(acquisition)).isInstanceOf(RedisUnavailableException.class);
    }

    @Test
    void aClaimGivenUpInDoubtIsGivenBackAndTheOwnersNextAcquisitionWaitsForIt() {
        lock.claims();
        LockAcquisition first = start(FOREVER, true);
        lock.next("claim").lose();

        first.result().cancel(false);

        RecordingProtocol.Call giveBack = lock.next("abandon");
        lock.next("leave").answer(null);
        assertThat(first.settled()).isDone();
        LockAcquisition next = start(FOREVER, true);
        assertThat(lock.calls()).as("a claim sent now could be taken back by the give-back").isEmpty();
        giveBack.answer(true);
        lock.next("claim").answer(Attempt.ACQUIRED);
        assertThat(next.result()).isCompletedWithValue(true);
    }

    /**
     * Issue 37 (simulator seed 404, replay -877491324520158678:60): the owner's next acquisition,
     * started while a cancelled one had not settled, waited for that settle, but not for the
     * give-back its settle registered; its claim landed first and the give-back removed it.
     */
    @Test
    void aNextAcquisitionWaitsForTheGiveBackTheCancelledOneRegisteredAsItSettled() {
        lock.claims();
        LockAcquisition first = start(FOREVER, true);
        RecordingProtocol.Call claim = lock.next("claim");
        first.result().cancel(false); // its claim in flight: not settled
        LockAcquisition next = start(FOREVER, true);
        assertThat(lock.calls()).as("it waits for the first to settle").isEmpty();

        claim.lose(); // the first settles, and its claim's give-back goes out
        RecordingProtocol.Call giveBack = lock.next("abandon");
        lock.next("leave").answer(null);
        assertThat(first.settled()).isDone();

        assertThat(lock.calls()).as("a claim sent now could be taken back by the give-back").isEmpty();
        giveBack.answer(true);
        lock.next("claim").answer(Attempt.ACQUIRED);
        assertThat(next.result()).isCompletedWithValue(true);
    }

    @Test
    void aClaimWhoseBoundRanOutIsGivenBackBeforeItsCallerIsTold() {
        lock.claims();
        LockAcquisition acquisition = start(FOREVER, true);

        loseEveryCall(acquisition, 10_000);

        assertThat(client.abandonments.pending(lock, 1)).as("the give-back is under way").isNotNull();
        assertThat(failure(acquisition)).isInstanceOf(RedisUnavailableException.class);
    }

    @Test
    void anAttemptThatIsNotAClaimIsNotGivenBackWhenGivenUpInDoubt() {
        LockAcquisition acquisition = start(FOREVER, false);
        lock.next("acquire").lose();

        acquisition.result().cancel(false);

        lock.next("leave").answer(null);
        assertThat(lock.calls()).as("only a claim can be given back").isEmpty();
        assertThat(client.abandonments.pending(lock, 1)).isNull();
    }

    @Test
    void theNextAcquisitionFailsWhenRedisDoesNotAnswerTheGiveBackWithinTheBound() {
        lock.claims();
        LockAcquisition first = start(FOREVER, true);
        lock.next("claim").lose();
        first.result().cancel(false);
        lock.next("abandon"); // never answered
        lock.next("leave").answer(null);

        LockAcquisition next = start(FOREVER, true);
        client.timer.advance(GRACE - 1);
        assertThat(next.result()).isNotDone();
        client.timer.advance(1);

        assertThat(failure(next)).isInstanceOf(RedisUnavailableException.class).hasMessageContaining("give-back");
        assertThat(lock.calls()).as("it never attempted").isEmpty();
    }

    @Test
    void aCancelWhileWaitingForTheGiveBackEndsWithoutAnAttempt() {
        lock.claims();
        LockAcquisition first = start(FOREVER, true);
        lock.next("claim").lose();
        first.result().cancel(false);
        RecordingProtocol.Call giveBack = lock.next("abandon");
        lock.next("leave").answer(null);
        LockAcquisition next = start(FOREVER, true);

        next.result().cancel(false);

        assertThat(next.settled()).isDone();
        giveBack.answer(false);
        assertThat(lock.calls()).isEmpty();
    }

    /**
     * Loses the reply of every call the acquisition sends, a millisecond at a time, until it fails
     * (answering its leave); how long after its first call that took.
     */
    private long loseEveryCall(LockAcquisition acquisition, long maxMillis) {
        for (long elapsed = 0; elapsed <= maxMillis; elapsed++) {
            while (lock.sent()) {
                RecordingProtocol.Call call = lock.calls().remove(0);
                if (call.op.equals("leave")) {
                    call.answer(null);
                } else if (!call.op.equals("abandon")) {
                    call.lose();
                }
            }
            if (acquisition.result().isDone()) {
                return elapsed;
            }
            client.timer.advance(1);
        }
        throw new AssertionError("still running after " + maxMillis + " ms");
    }

    /**
     * Issue 37 (simulator replay 1054119953125113664:60, a fair lock): a holder's re-entry with a
     * place, whose reply was lost, was sent again as "in line"; the script took the outer hold's
     * field for a grant to that place and held once instead of re-entering. Redis counting only
     * the other holds means no lost attempt ran, so none took a place.
     */
    @Test
    void aReentryFoundNotLandedIsSentAgainAsAReentryNotAsAPlaceInLine() {
        RecordingProtocol line = new RecordingProtocol("orders").granting(GrantKind.FAIR, true);
        // the lock is contended: this client listens on its channels already
        client.wakeUps.alreadyConfirmed(line.unlockChannel(1)).alreadyConfirmed(line.grantChannel());
        LockAcquisition acquisition = LockAcquisition.create(client, line, request(FOREVER, false).inLine(7, false));
        acquisition.confirmsReentryBy(() -> 1);
        acquisition.begin();
        RecordingProtocol.Call first = line.next("acquire");
        assertThat(first.nonce).as("sent with its place").isEqualTo(7);
        first.lose(); // it may have taken the place
        client.timer.advance(10);

        RecordingProtocol.Call confirm = line.next("confirmReentry");
        assertThat(confirm.leaseMillis).as("the holds besides it").isEqualTo(1);
        confirm.answer(Attempt.notAcquired(-2));

        RecordingProtocol.Call again = line.next("acquire");
        assertThat(again.inLine).as("not sent as in line: it took no place").isFalse();
        again.answer(Attempt.ACQUIRED);
        assertThat(acquisition.result()).isCompletedWithValue(true);
    }

    /**
     * Simulator seed 606 (a fair lock): a holder's re-entry with a place was lost on a dropped
     * connection and cancelled; leaving its place found the owner's field, the outer hold, and took
     * it for a grant to the place, whose give-back then removed the outer hold. With holds besides
     * it, the field is no grant: the hold count tells whether anything landed.
     */
    @Test
    void aLeaveThatFindsTheFieldOfAnOwnerWithOtherHoldsIsNoGrantAndTheCountTells() {
        RecordingProtocol line = new RecordingProtocol("orders").granting(GrantKind.FAIR, true);
        client.wakeUps.alreadyConfirmed(line.unlockChannel(1)).alreadyConfirmed(line.grantChannel());
        LockAcquisition acquisition = LockAcquisition.create(client, line, request(FOREVER, false).inLine(7, false));
        acquisition.confirmsReentryBy(() -> 1);
        acquisition.begin();
        line.next("acquire").lose(); // it may have taken the place
        acquisition.result().cancel(false);

        line.next("leave").answer(true); // the outer hold's field

        assertThat(line.calls()).as("no release of the outer hold").noneMatch(call -> call.op.equals("release"));
        RecordingProtocol.Call count = line.next("confirmReentry");
        assertThat(count.leaseMillis).as("the holds besides it").isEqualTo(1);
        count.answer(Attempt.notAcquired(-2)); // Redis counts only the outer hold: nothing landed
        assertThat(line.calls()).isEmpty();
    }

    /**
     * Simulator seed 42 (a red lock's components): a re-entry whose reply was lost was confirmed
     * after its owner's unlock could not be confirmed, which had left holds on Redis that this
     * client no longer counts. Counted against none, they said "landed", and the owner's next
     * acquisition re-entered on top of them. An owner counted with no holds finds out with a claim,
     * which makes whatever its field holds one hold.
     */
    @Test
    void aLostReentryOfAnOwnerCountedWithNoHoldsFindsOutWithAClaim() {
        RecordingProtocol plain = new RecordingProtocol("orders").claims();
        LockAcquisition acquisition = LockAcquisition.create(client, plain, request(FOREVER, false));
        int[] counted = {1};
        acquisition.confirmsReentryBy(() -> counted[0]);
        acquisition.begin();
        plain.next("acquire").lose();
        counted[0] = 0; // the owner's unconfirmed unlock: this client forgot its holds

        client.timer.advance(10);

        plain.next("claim").answer(Attempt.ACQUIRED);
        assertThat(acquisition.result()).isCompletedWithValue(true);
    }

    private LockAcquisition start(long waitMillis, boolean fresh) {
        return LockAcquisition.start(client, lock, request(waitMillis, fresh));
    }
}
