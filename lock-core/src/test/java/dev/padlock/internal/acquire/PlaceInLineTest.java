package dev.padlock.internal.acquire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.internal.protocol.GrantMessage;
import dev.padlock.internal.protocol.LockProtocol.Attempt;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Which attempt an acquisition sends, the place in line it takes, and how it leaves it. */
class PlaceInLineTest {
    private static final long NONCE = 7;
    private final RecordingProtocol claiming = new RecordingProtocol("orders").claiming()
            .granting(GrantMessage.PLAIN, true);
    private final RecordingProtocol fair = new RecordingProtocol("orders").granting(GrantMessage.FAIR, true);

    @Test
    void aClaimTakesItsPlaceOnlyWhileGrantsAreHeardAndIsInLineOnceItFails() {
        PlaceInLine place = new PlaceInLine(claiming, 1, 10_000, true, false, NONCE, false);

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
        PlaceInLine place = new PlaceInLine(fair, 1, 10_000, false, false, NONCE, false);

        place.attempt(true);

        assertThat(fair.next("acquire").nonce).isEqualTo(NONCE);
        assertThat(place.inLine()).as("its reply may be lost").isTrue();
    }

    @Test
    void aOneShotTakesNoPlaceAndLeavesNothing() {
        PlaceInLine place = new PlaceInLine(fair, 1, 10_000, false, true, NONCE, false);

        place.attempt(true);

        RecordingProtocol.Call attempt = fair.next("acquire");
        assertThat(attempt.willWait).isFalse();
        assertThat(attempt.nonce).isZero();
        assertThat(place.leave()).isNull();
    }

    @Test
    void aHoldLeavesNothingToLeave() {
        PlaceInLine place = new PlaceInLine(fair, 1, 10_000, false, false, NONCE, false);
        place.attempt(true);

        place.held();

        assertThat(place.leave()).isNull();
    }

    @Test
    void aPlaceLeftBehindRunsTheHookBeforeTheLeaveCompletes() {
        PlaceInLine place = new PlaceInLine(fair, 1, 10_000, false, false, NONCE, true);
        boolean[] leftBehindWhenHookRan = new boolean[1];
        place.onLeftBehind(() -> leftBehindWhenHookRan[0] = place.leftBehind());

        CompletableFuture<Boolean> left = place.leave();
        fair.next("leave").lose();

        assertThat(left).isCompletedWithValue(false);
        assertThat(leftBehindWhenHookRan[0]).isTrue();
    }

    @Test
    void aClaimLeavesTheLineByItsOwnerAndLeavesNothingBehindWhenThatFails() {
        PlaceInLine place = new PlaceInLine(claiming, 1, 10_000, true, false, NONCE, true);

        CompletableFuture<Boolean> left = place.leave();
        RecordingProtocol.Call leave = claiming.next("leave");
        leave.lose();

        assertThat(leave.nonce).isZero();
        assertThat(left).isCompletedWithValue(false);
        assertThat(place.leftBehind()).as("a grant nobody waits for is passed on by the local queue").isFalse();
    }
}
