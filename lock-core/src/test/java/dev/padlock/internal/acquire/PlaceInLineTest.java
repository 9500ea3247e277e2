package dev.padlock.internal.acquire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.RedisCommandException;
import dev.padlock.internal.base.ManualTimer;
import dev.padlock.internal.protocol.GrantKind;
import dev.padlock.internal.protocol.LockProtocol.Release;
import dev.padlock.internal.protocol.LockProtocol.ReleaseOutcome;
import dev.padlock.internal.protocol.LockProtocol.Attempt;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Which attempt an acquisition sends, the place in line it takes, and how it leaves it: a leave
 * whose reply was lost is sent again until Redis answers, and a grant it finds is given back once.
 */
class PlaceInLineTest {
    private static final long NONCE = 7;
    private final ManualTimer timer = new ManualTimer();
    private final Abandonments abandonments = new Abandonments(timer, timer, 1_000);
    private final RecordingProtocol claiming = new RecordingProtocol("orders").claims()
            .granting(GrantKind.PLAIN, true);
    private final RecordingProtocol fair = new RecordingProtocol("orders").granting(GrantKind.FAIR, true);

    @Test
    void aClaimTakesItsPlaceOnlyWhileGrantsAreHeardAndIsInLineOnceItFails() {
        PlaceInLine place = new PlaceInLine(claiming, abandonments, 1, 10_000, true, false, NONCE, false);

        place.attempt(false);
        assertThat(claiming.next("claim").nonce).isZero();
        place.attempt(true);
        RecordingProtocol.Call claim = claiming.next("claim");
        assertThat(claim.nonce).isEqualTo(NONCE);
        assertThat(place.inLine()).as("not before its answer").isFalse();
        place.answered(Attempt.notAcquired(5_000), true);

        assertThat(place.inLine()).isTrue();
    }

    @Test
    void anAttemptThatTakesAPlaceCountsAsInLineAsSoonAsItIsSent() {
        PlaceInLine place = new PlaceInLine(fair, abandonments, 1, 10_000, false, false, NONCE, false);

        place.attempt(true);

        assertThat(fair.next("acquire").nonce).isEqualTo(NONCE);
        assertThat(place.inLine()).as("its reply may be lost").isTrue();
    }

    @Test
    void aOneShotTakesNoPlaceAndLeavesNothing() {
        PlaceInLine place = new PlaceInLine(fair, abandonments, 1, 10_000, false, true, NONCE, false);

        place.attempt(true);

        RecordingProtocol.Call attempt = fair.next("acquire");
        assertThat(attempt.willWait).isFalse();
        assertThat(attempt.nonce).isZero();
        assertThat(place.leave()).isNull();
    }

    @Test
    void aHoldLeavesNothingToLeave() {
        PlaceInLine place = new PlaceInLine(fair, abandonments, 1, 10_000, false, false, NONCE, false);
        place.attempt(true);

        place.held();

        assertThat(place.leave()).isNull();
    }

    @Test
    void aPlaceLeftBehindRunsTheHookBeforeTheLeaveCompletes() {
        PlaceInLine place = new PlaceInLine(fair, abandonments, 1, 10_000, false, false, NONCE, true);
        boolean[] leftBehindWhenHookRan = new boolean[1];
        place.onLeftBehind(() -> leftBehindWhenHookRan[0] = place.leftBehind());

        CompletableFuture<Boolean> left = place.leave();
        fair.next("leave").lose();

        assertThat(left).isCompletedWithValue(false);
        assertThat(leftBehindWhenHookRan[0]).isTrue();
    }

    @Test
    void aClaimLeavesTheLineByItsOwnerAndLeavesNothingBehindWhenThatFails() {
        PlaceInLine place = new PlaceInLine(claiming, abandonments, 1, 10_000, true, false, NONCE, true);

        CompletableFuture<Boolean> left = place.leave();
        RecordingProtocol.Call leave = claiming.next("leave");
        leave.lose();

        assertThat(leave.nonce).isZero();
        assertThat(left).isCompletedWithValue(false);
        assertThat(place.leftBehind()).as("a grant nobody waits for is passed on by the local queue").isFalse();
    }

    @Test
    void aLeaveWhoseReplyIsLostIsSentAgainUntilRedisAnswers() {
        PlaceInLine place = new PlaceInLine(fair, abandonments, 1, 10_000, false, false, NONCE, true);
        CompletableFuture<Boolean> left = place.leave();
        fair.next("leave").lose();
        assertThat(left).as("the caller is told at once").isCompletedWithValue(false);
        CompletableFuture<Void> stillLeaving = place.stillLeaving();
        assertThat(stillLeaving).isNotNull().isNotDone();

        timer.advance(10);
        fair.next("leave").lose();
        timer.advance(20);
        RecordingProtocol.Call again = fair.next("leave");
        assertThat(again.nonce).isEqualTo(NONCE);
        assertThat(place.leftBehind()).isTrue();
        again.answer(false); // out of line now

        assertThat(stillLeaving).isDone();
        assertThat(place.leftBehind()).isFalse();
        assertThat(fair.calls()).isEmpty();
        assertThat(timer.pending()).isZero();
    }

    @Test
    void aGrantTheLeaveSentAgainFindsIsGivenBackOnce() {
        PlaceInLine place = new PlaceInLine(fair, abandonments, 1, 10_000, false, false, NONCE, true);
        place.leave();
        fair.next("leave").lose();
        timer.advance(10);

        fair.next("leave").answer(true); // a grant reached the place as it gave up
        RecordingProtocol.Call giveBack = fair.next("release");
        assertThat(giveBack.owner).isEqualTo(1);
        assertThat(place.stillLeaving()).as("settled once the give-back is answered").isNotDone();
        place.giveBackGrant(); // the grant's message comes too

        giveBack.answer(new Release(ReleaseOutcome.RELEASED, 0));
        assertThat(place.stillLeaving()).isDone();
        assertThat(fair.calls()).as("given back once").isEmpty();
    }

    /**
     * Seed 13 ({@code 2034139375912498135:60}, found with the async bound on): an owner holding a
     * read lock once re-entered, its attempt refused while the connection was down, and gave up. The
     * leave sent again found the owner's field, which was its outer hold: released as a grant, it
     * removed the hold the owner was told of. A field the leave sent again finds, while the owner has
     * other holds, is given back by the hold count, as a first leave's is.
     */
    @Test
    void aFieldTheLeaveSentAgainFindsWhileTheOwnerHoldsOtherwiseIsGivenBackByTheHoldCount() {
        PlaceInLine place = new PlaceInLine(fair, abandonments, 1, 10_000, false, false, NONCE, true);
        LostReplies lostReplies = new LostReplies(fair, 1, 10_000, false,
                dev.padlock.internal.base.WaitBudget.of(0, timer), 1_000, timer, abandonments);
        lostReplies.reentries(() -> 1); // the outer hold, told
        place.countsOtherHoldsBy(lostReplies);
        place.leave();
        fair.next("leave").lose();
        timer.advance(10);

        fair.next("leave").answer(true); // the owner's field: its outer hold, or the re-entry that landed

        RecordingProtocol.Call asked = fair.next("confirmReentry");
        assertThat(asked.leaseMillis).as("the holds besides the one given up").isEqualTo(1);
        asked.answer(Attempt.notAcquired(0)); // Redis counts the outer hold alone
        assertThat(fair.calls()).as("the outer hold stays").isEmpty();
        assertThat(place.stillLeaving()).isDone();
    }

    @Test
    void aGrantWhoseMessageCameFirstIsNotGivenBackAgainByTheLeave() {
        PlaceInLine place = new PlaceInLine(fair, abandonments, 1, 10_000, false, false, NONCE, true);
        place.leave();
        fair.next("leave").lose();
        place.giveBackGrant();
        RecordingProtocol.Call giveBack = fair.next("release");
        timer.advance(10);

        fair.next("leave").answer(true); // ran before the release: it kept the grant

        assertThat(fair.calls()).as("given back once").isEmpty();
        assertThat(place.stillLeaving()).as("settled once that give-back is answered").isNotDone();
        giveBack.answer(new Release(ReleaseOutcome.RELEASED, 0));
        assertThat(place.stillLeaving()).isDone();
    }

    @Test
    void anErrorAnswerEndsTheLeavesSentAgain() {
        PlaceInLine place = new PlaceInLine(fair, abandonments, 1, 10_000, false, false, NONCE, true);
        place.leave();
        fair.next("leave").lose();
        timer.advance(10);

        fair.next("leave").fail(new RedisCommandException("ERR", null));

        assertThat(place.stillLeaving()).isDone();
        assertThat(place.leftBehind()).as("a grant to it is still given back").isTrue();
        timer.advance(1_000);
        assertThat(fair.calls()).isEmpty();
    }

    @Test
    void leavesSentAgainStopAfterTheirBound() {
        PlaceInLine place = new PlaceInLine(fair, abandonments, 1, 10_000, false, false, NONCE, true);
        place.leave();
        fair.next("leave").lose();

        long elapsed = 0;
        while (!place.stillLeaving().isDone()) {
            timer.advance(500);
            elapsed += 500;
            if (fair.sent()) {
                fair.next("leave").lose();
            }
        }

        assertThat(elapsed).isBetween(Abandonments.PLACE_RETRY_MILLIS, Abandonments.PLACE_RETRY_MILLIS + 1_000);
        assertThat(place.leftBehind()).isTrue();
        assertThat(timer.pending()).isZero();
    }

    @Test
    void closingTheClientStopsTheLeavesSentAgain() {
        PlaceInLine place = new PlaceInLine(fair, abandonments, 1, 10_000, false, false, NONCE, true);
        place.leave();
        fair.next("leave").lose();

        abandonments.close();

        assertThat(place.stillLeaving()).isDone();
        timer.advance(1_000);
        assertThat(fair.calls()).isEmpty();
    }

    @Test
    void aLeaveAnsweredAtOnceSendsNothingAgain() {
        PlaceInLine place = new PlaceInLine(fair, abandonments, 1, 10_000, false, false, NONCE, true);
        place.leave();

        fair.next("leave").answer(false);

        assertThat(place.stillLeaving()).isNull();
        assertThat(timer.pending()).isZero();
    }
}
