package dev.padlock.internal.acquire;

import static dev.padlock.internal.acquire.LockAcquisitionTest.failure;
import static dev.padlock.internal.acquire.LockAcquisitionTest.request;
import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.RedisCommandException;
import dev.padlock.internal.protocol.GrantKind;
import dev.padlock.internal.protocol.LockProtocol.Attempt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Places in line on Redis and the grants that answer them: a failed attempt that will wait takes
 * the acquisition's place once its grant channel is subscribed; a grant message from the call that
 * put the owner's field in makes it hold (parked, in flight, or as it stops); a place it stops
 * without is left, or noted as left behind when leaving fails.
 */
class LockAcquisitionGrantTest {
    private static final long FOREVER = LockAcquisition.FOREVER;
    private static final long NONCE = 7;
    private static final String UNLOCK = "unlock:orders";
    private static final String GRANTS = "grants:c";

    private final AcquireFixture client = new AcquireFixture();
    /** A kind that claims and grants, whose grant message confirms a hold (the plain lock's line). */
    private final RecordingProtocol lock = new RecordingProtocol("orders").claims()
            .granting(GrantKind.PLAIN, true);

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    void aClaimTakesItsPlaceInLineOnlyOnceTheGrantChannelIsSubscribed() {
        start(FOREVER);

        RecordingProtocol.Call first = lock.next("claim");
        assertThat(first.nonce).as("a grant nobody hears would be wasted").isZero();
        first.answer(Attempt.notAcquired(5_000));

        assertThat(client.wakeUps.subscribed()).containsExactly(UNLOCK, GRANTS);
        RecordingProtocol.Call second = lock.next("claim");
        assertThat(second.nonce).isEqualTo(NONCE);
        assertThat(second.inLine).isFalse();
    }

    @Test
    void aGrantWhileParkedHoldsWithoutAnotherAttempt() {
        LockAcquisition acquisition = parkedInLine(FOREVER);

        assertThat(acquisition.grant(NONCE)).isTrue();

        assertThat(acquisition.result()).isCompletedWithValue(true);
        assertThat(acquisition.granted()).isTrue();
        assertThat(lock.calls()).as("the message came from the call that put the owner's field in").isEmpty();
        assertThat(client.wakeUps.open()).isZero();
    }

    /**
     * The refusal of the attempt in flight says the owner's field was not there when it ran: the
     * grant came later, or was gone by then. Redis is asked before the grant is taken (issue 37).
     */
    @Test
    void aGrantReadWithTheRefusalOfTheAttemptInFlightIsConfirmedFirst() {
        LockAcquisition acquisition = start(FOREVER);
        lock.next("claim").answer(Attempt.notAcquired(5_000));
        RecordingProtocol.Call inFlight = lock.next("claim");

        assertThat(acquisition.grant(NONCE)).isTrue();
        assertThat(acquisition.result()).as("the loop's next step takes it").isNotDone();
        inFlight.answer(Attempt.notAcquired(5_000));
        assertThat(acquisition.result()).isNotDone();
        lock.next("renew").answer(true);

        assertThat(acquisition.result()).isCompletedWithValue(true);
        assertThat(acquisition.granted()).isTrue();
    }

    @Test
    void aGrantThatCameBeforeAnErrorAnswerStillHolds() {
        LockAcquisition acquisition = start(FOREVER);
        lock.next("claim").answer(Attempt.notAcquired(5_000));
        RecordingProtocol.Call inFlight = lock.next("claim");
        acquisition.grant(NONCE);

        inFlight.fail(new RedisCommandException("BUSY", null));

        assertThat(acquisition.result()).as("a stop that has not told its caller turns round")
                .isCompletedWithValue(true);
    }

    @Test
    void aGrantDuringTheDoubtPauseHoldsWithoutFindingOut() {
        LockAcquisition acquisition = start(FOREVER);
        lock.next("claim").answer(Attempt.notAcquired(5_000));
        lock.next("claim").lose();

        acquisition.grant(NONCE);

        assertThat(acquisition.result()).isCompletedWithValue(true);
        assertThat(lock.calls()).isEmpty();
        assertThat(client.abandonments.pending(lock, 1)).as("nothing to give back: it holds").isNull();
    }

    @Test
    void aGrantForAnotherPlaceIsNotTaken() {
        LockAcquisition acquisition = parkedInLine(FOREVER);

        assertThat(acquisition.grant(NONCE + 1)).isFalse();

        assertThat(acquisition.result()).isNotDone();
    }

    @Test
    void aGrantAfterTheAcquisitionStoppedIsNotTaken() {
        LockAcquisition acquisition = parkedInLine(300);
        client.timer.advance(300);
        lock.next("claim").answer(Attempt.notAcquired(5_000));
        lock.next("leave").answer(null);
        assertThat(acquisition.result()).isCompletedWithValue(false);

        assertThat(acquisition.grant(NONCE)).as("the caller decides what becomes of it").isFalse();
    }

    @Test
    void aGrantBeforeTheLoopBeganHoldsWithoutAnAttempt() {
        LockAcquisition acquisition = LockAcquisition.create(client, lock, request(FOREVER, true).inLine(NONCE, true));

        assertThat(acquisition.grant(NONCE)).isTrue();
        acquisition.begin();

        assertThat(acquisition.result()).isCompletedWithValue(true);
        assertThat(lock.calls()).isEmpty();
    }

    @Test
    void anAcquisitionAlreadyPutInLineByAReleaseWaitsForItsGrantWithoutAnAttempt() {
        client.wakeUps.alreadyConfirmed(UNLOCK).alreadyConfirmed(GRANTS);
        LockAcquisition acquisition = LockAcquisition.start(client, lock, request(FOREVER, true).inLine(NONCE, true));

        assertThat(lock.calls()).isEmpty();
        assertThat(client.wakeUps.parks()).hasSize(1);
        acquisition.grant(NONCE);
        assertThat(acquisition.result()).isCompletedWithValue(true);
    }

    @Test
    void aGrantMessageThatDoesNotConfirmOnlyWakesTheLoopWhoseNextAttemptFindsTheHold() {
        RecordingProtocol fair = new RecordingProtocol("orders").granting(GrantKind.FAIR, false);
        LockAcquisition acquisition = LockAcquisition.start(client, fair, request(FOREVER, false).inLine(NONCE, false));
        fair.next("acquire").answer(Attempt.notAcquired(5_000));
        fair.next("acquire").answer(Attempt.notAcquired(5_000));

        assertThat(acquisition.grant(NONCE)).isTrue();

        RecordingProtocol.Call attempt = fair.next("acquire");
        assertThat(attempt.inLine).as("its field in the lock is a grant").isTrue();
        attempt.answer(Attempt.ACQUIRED);
        assertThat(acquisition.result()).isCompletedWithValue(true);
        assertThat(acquisition.granted()).as("an attempt's reply told it").isFalse();
    }

    @Test
    void aWakeOnlyGrantThatCameWhileAnAttemptWasInFlightMakesTheNextParkAttemptAtOnce() {
        RecordingProtocol fair = new RecordingProtocol("orders").granting(GrantKind.FAIR, false);
        LockAcquisition acquisition = LockAcquisition.start(client, fair, request(FOREVER, false).inLine(NONCE, false));
        fair.next("acquire").answer(Attempt.notAcquired(5_000));
        RecordingProtocol.Call inFlight = fair.next("acquire");

        acquisition.grant(NONCE);
        inFlight.answer(Attempt.notAcquired(5_000));

        assertThat(client.wakeUps.parks()).isEmpty();
        fair.next("acquire").answer(Attempt.ACQUIRED);
        assertThat(acquisition.result()).isCompletedWithValue(true);
    }

    @Test
    void aClaimThatStopsWithoutTheLockLeavesTheLine() {
        LockAcquisition acquisition = parkedInLine(300);
        client.timer.advance(300);

        RecordingProtocol.Call last = lock.next("claim");
        assertThat(last.inLine).isTrue();
        last.answer(Attempt.notAcquired(5_000));

        lock.next("leave").answer(null);
        assertThat(acquisition.result()).isCompletedWithValue(false);
        assertThat(acquisition.placeLeftBehind()).isFalse();
    }

    @Test
    void aCancelledWaitInLineLeavesTheLine() {
        LockAcquisition acquisition = parkedInLine(FOREVER);

        acquisition.result().cancel(false);

        lock.next("leave").answer(null);
        assertThat(acquisition.settled()).isDone();
        assertThat(lock.calls()).isEmpty();
    }

    @Test
    void aKindThatGrantsWithoutClaimingLeavesItsPlaceByItsNonce() {
        RecordingProtocol fair = new RecordingProtocol("orders").granting(GrantKind.FAIR, true);
        LockAcquisition acquisition = LockAcquisition.start(client, fair, request(300, false).inLine(NONCE, false));
        fair.next("acquire").answer(Attempt.notAcquired(5_000));
        fair.next("acquire").answer(Attempt.notAcquired(5_000));
        client.timer.advance(300);
        fair.next("acquire").answer(Attempt.notAcquired(5_000));

        RecordingProtocol.Call leave = fair.next("leave");
        assertThat(leave.nonce).isEqualTo(NONCE);
        leave.answer(false);
        assertThat(acquisition.result()).isCompletedWithValue(false);
    }

    @Test
    void aLeaveThatFindsAGrantHolds() {
        RecordingProtocol fair = new RecordingProtocol("orders").granting(GrantKind.FAIR, true);
        LockAcquisition acquisition = LockAcquisition.start(client, fair, request(300, false).inLine(NONCE, false));
        fair.next("acquire").answer(Attempt.notAcquired(5_000));
        fair.next("acquire").answer(Attempt.notAcquired(5_000));
        client.timer.advance(300);
        fair.next("acquire").answer(Attempt.notAcquired(5_000));

        fair.next("leave").answer(true); // the grant came as it gave up

        assertThat(acquisition.result()).isCompletedWithValue(true);
        assertThat(fair.calls()).isEmpty();
    }

    @Test
    void aPlaceThatCouldNotBeLeftIsLeftBehind() {
        RecordingProtocol fair = new RecordingProtocol("orders").granting(GrantKind.FAIR, true);
        LockAcquisition acquisition = LockAcquisition.start(client, fair, request(300, false).inLine(NONCE, false));
        fair.next("acquire").answer(Attempt.notAcquired(5_000));
        fair.next("acquire").answer(Attempt.notAcquired(5_000));
        client.timer.advance(300);
        fair.next("acquire").answer(Attempt.notAcquired(5_000));

        fair.next("leave").lose();

        assertThat(acquisition.result()).isCompletedWithValue(false);
        assertThat(acquisition.placeLeftBehind()).as("a grant to it holds the lock for nobody").isTrue();
        assertThat(acquisition.settled()).as("its leave is sent again").isNotDone();
        client.timer.advance(10);
        fair.next("leave").answer(false);
        assertThat(acquisition.placeLeftBehind()).isFalse();
        assertThat(acquisition.settled()).isDone();
    }

    @Test
    void aSpinningWaitTakesNoPlaceInLine() {
        LockAcquisition acquisition = LockAcquisition.start(client, lock,
                AcquireRequest.of(1, 10_000, FOREVER, true, true).inLine(NONCE, false));

        assertThat(acquisition.placeNonce()).isZero();
        assertThat(lock.next("claim").nonce).isZero();
        assertThat(acquisition.grant(NONCE)).isFalse();
    }

    @Test
    void anErrorAfterTheLineWasJoinedLeavesItBeforeFailing() {
        LockAcquisition acquisition = parkedInLine(FOREVER);
        client.wakeUps.fire(UNLOCK);

        lock.next("claim").fail(new RedisCommandException("NOSCRIPT", null));

        RecordingProtocol.Call leave = lock.next("leave");
        assertThat(acquisition.result()).isNotDone();
        leave.answer(null);
        assertThat(failure(acquisition)).isInstanceOf(RedisCommandException.class);
    }

    /** A fresh claim of owner 1 with a place: it fails, subscribes, fails again in line, and parks. */
    private LockAcquisition parkedInLine(long waitMillis) {
        LockAcquisition acquisition = start(waitMillis);
        lock.next("claim").answer(Attempt.notAcquired(5_000));
        lock.next("claim").answer(Attempt.notAcquired(5_000));
        assertThat(client.wakeUps.parks()).hasSize(1);
        return acquisition;
    }

    private LockAcquisition start(long waitMillis) {
        return LockAcquisition.start(client, lock, request(waitMillis, true).inLine(NONCE, false));
    }
}
