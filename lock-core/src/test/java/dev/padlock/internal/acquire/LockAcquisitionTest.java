package dev.padlock.internal.acquire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.RedisCommandException;
import dev.padlock.internal.lease.LeaseMillis;
import dev.padlock.internal.protocol.LockProtocol.Attempt;
import dev.padlock.internal.protocol.LockProtocol.Release;
import dev.padlock.internal.protocol.LockProtocol.ReleaseOutcome;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The wait loop's state machine alone, without Redis: a lock kind that records each call and
 * answers only when the test says so, channels the test confirms and fires by hand, and a manual
 * timer. What it pins: an owner is told it holds only after a reply that put or found its field;
 * a wait parks until an unlock message, the holder's lease or its own end; nothing is left behind.
 */
class LockAcquisitionTest {
    private static final long OWNER = 1;
    private static final long LEASE = 10_000;
    private static final long FOREVER = LockAcquisition.FOREVER;
    private static final String UNLOCK = "unlock:orders";

    private final AcquireFixture client = new AcquireFixture();
    private final RecordingProtocol lock = new RecordingProtocol("orders");

    @AfterEach
    void close() {
        client.close();
    }

    // ---- the loop

    @Test
    void aFirstAttemptThatAcquiresHoldsWithoutSubscribing() {
        LockAcquisition acquisition = start(FOREVER);

        RecordingProtocol.Call attempt = lock.next("acquire");
        assertThat(attempt.willWait).as("a failed attempt would be followed by a wait").isTrue();
        assertThat(acquisition.result()).as("sent, not answered").isNotDone();
        attempt.answer(Attempt.ACQUIRED);

        assertThat(acquisition.result()).isCompletedWithValue(true);
        assertThat(acquisition.settled()).isDone();
        assertThat(client.wakeUps.subscribed()).isEmpty();
        assertThat(lock.calls()).isEmpty();
    }

    @Test
    void aFreshAcquisitionOfAKindThatClaimsSendsAClaimAndAReentrySendsAnAttempt() {
        lock.claims();
        LockAcquisition fresh = LockAcquisition.start(client, lock, request(FOREVER, true));
        lock.next("claim").answer(Attempt.ACQUIRED);
        LockAcquisition reentry = LockAcquisition.start(client, lock, request(FOREVER, false));
        lock.next("acquire").answer(Attempt.ACQUIRED);

        assertThat(fresh.result()).isCompletedWithValue(true);
        assertThat(reentry.result()).isCompletedWithValue(true);
    }

    @Test
    void theFencingTokenOfTheReplyThatAcquiredIsKept() {
        LockAcquisition acquisition = start(FOREVER);

        lock.next("acquire").answer(new Attempt(true, 0, 42, null));

        assertThat(acquisition.token()).isEqualTo(42);
    }

    @Test
    void aFailedFirstAttemptSubscribesThenAttemptsAgainOnceRedisConfirms() {
        client.wakeUps.confirmAtOnce(false);
        LockAcquisition acquisition = start(FOREVER);

        lock.next("acquire").answer(Attempt.notAcquired(5_000));

        assertThat(client.wakeUps.subscribed()).containsExactly(UNLOCK);
        assertThat(lock.calls()).as("an unlock before the subscription is confirmed must not be missed").isEmpty();
        client.wakeUps.confirm(UNLOCK);
        lock.next("acquire").answer(Attempt.ACQUIRED);
        assertThat(acquisition.result()).isCompletedWithValue(true);
        assertThat(client.wakeUps.open()).as("subscription given back").isZero();
    }

    @Test
    void aSubscriptionRedisDoesNotConfirmDelaysTheNextAttemptByOneCommandTimeoutAtMost() {
        client.wakeUps.confirmAtOnce(false);
        start(FOREVER);

        lock.next("acquire").answer(Attempt.notAcquired(5_000));

        assertThat(client.millisUntilSent(lock, 5_000)).isEqualTo(AcquireFixture.COMMAND_TIMEOUT_MILLIS);
    }

    @Test
    void aFailedAttemptAfterSubscribingParksUntilAnUnlockMessage() {
        LockAcquisition acquisition = start(FOREVER);
        failsThenParks(5_000);

        assertThat(client.wakeUps.lastPark().millis()).as("the holder's lease").isEqualTo(5_000);
        client.timer.advance(4_000);
        assertThat(lock.calls()).isEmpty();
        client.wakeUps.fire(UNLOCK);

        lock.next("acquire").answer(Attempt.ACQUIRED);
        assertThat(acquisition.result()).isCompletedWithValue(true);
    }

    @Test
    void aParkEndsWhenTheHoldersLeaseWouldHaveRunOut() {
        start(FOREVER);
        failsThenParks(5_000);

        assertThat(client.millisUntilSent(lock, 10_000)).isEqualTo(5_000);
        lock.next("acquire");
    }

    @Test
    void aParkLastsAtMostTheWaitLeftAndAFailedLastAttemptThenAnswersFalse() {
        LockAcquisition acquisition = start(300);
        failsThenParks(5_000);

        assertThat(client.wakeUps.lastPark().millis()).isEqualTo(300);
        client.timer.advance(300);
        lock.next("acquire").answer(Attempt.notAcquired(5_000));

        RecordingProtocol.Call leave = lock.next("leave");
        assertThat(acquisition.result()).as("leaves any queue before it answers").isNotDone();
        leave.answer(null);
        assertThat(acquisition.result()).isCompletedWithValue(false);
        assertThat(acquisition.settled()).isDone();
        assertThat(client.wakeUps.open()).isZero();
    }

    @Test
    void aParkWhileTheSubscriptionIsUnconfirmedIsShortSoTheWaiterStillMakesProgress() {
        client.wakeUps.confirmAtOnce(false);
        start(FOREVER);
        lock.next("acquire").answer(Attempt.notAcquired(5_000));
        client.timer.advance(AcquireFixture.COMMAND_TIMEOUT_MILLIS); // the confirmation never comes

        lock.next("acquire").answer(Attempt.notAcquired(5_000));

        assertThat(client.wakeUps.lastPark().millis()).isEqualTo(100);
    }

    @Test
    void aRecentlyContendedLockIsAlreadySubscribedSoTheFirstFailureParksAtOnce() {
        client.wakeUps.alreadyConfirmed(UNLOCK);
        start(FOREVER);

        lock.next("acquire").answer(Attempt.notAcquired(5_000));

        assertThat(lock.calls()).as("no second attempt: nothing could have been missed").isEmpty();
        assertThat(client.wakeUps.subscribed()).isEmpty();
        assertThat(client.wakeUps.parks()).hasSize(1);
    }

    @Test
    void theKindsLongestParkBoundsEveryPark() {
        lock.maxParkMillis(1_000);
        start(FOREVER);

        failsThenParks(5_000);

        assertThat(client.wakeUps.lastPark().millis()).isEqualTo(1_000);
    }

    @Test
    void aOneShotAttemptThatFailsAnswersFalseAtOnceWithoutSubscribingOrQueueing() {
        LockAcquisition acquisition = start(0);

        RecordingProtocol.Call attempt = lock.next("acquire");
        assertThat(attempt.willWait).as("a one-shot attempt must not queue").isFalse();
        attempt.answer(Attempt.notAcquired(5_000));

        assertThat(acquisition.result()).isCompletedWithValue(false);
        assertThat(lock.calls()).as("no leave: it took no place").isEmpty();
        assertThat(client.wakeUps.subscribed()).isEmpty();
    }

    @Test
    void aOneShotAttemptThatAcquiresHolds() {
        LockAcquisition acquisition = start(0);

        lock.next("acquire").answer(Attempt.ACQUIRED);

        assertThat(acquisition.result()).isCompletedWithValue(true);
    }

    // ---- spinning

    @Test
    void aSpinningWaitBacksOffExponentiallyWithJitterWithinItsBounds() {
        LockAcquisition acquisition = spin(FOREVER);

        long step = LockAcquisition.MIN_BACK_OFF_MILLIS;
        for (int i = 0; i < 12; i++) {
            lock.next("acquire").answer(Attempt.notAcquired(-1));
            long waited = client.millisUntilSent(lock, 1_000);
            assertThat(waited).as("back-off %d", i).isBetween(Math.max(1, step / 2), step);
            step = Math.min(LockAcquisition.MAX_BACK_OFF_MILLIS, step * 2);
        }
        assertThat(step).as("reached its largest step").isEqualTo(LockAcquisition.MAX_BACK_OFF_MILLIS);
        assertThat(client.wakeUps.subscribed()).as("a spinning wait uses no pub/sub").isEmpty();
        lock.next("acquire").answer(Attempt.ACQUIRED);
        assertThat(acquisition.result()).isCompletedWithValue(true);
    }

    @Test
    void aSpinningWaitNeverBacksOffLongerThanTheHoldersLease() {
        spin(FOREVER);
        for (int i = 0; i < 8; i++) { // the back-off has grown to its largest step
            lock.next("acquire").answer(Attempt.notAcquired(-1));
            client.millisUntilSent(lock, 1_000);
        }

        lock.next("acquire").answer(Attempt.notAcquired(3));

        assertThat(client.millisUntilSent(lock, 1_000)).isBetween(1L, 3L);
    }

    @Test
    void aSpinningWaitNeverBacksOffPastItsDeadline() {
        LockAcquisition acquisition = spin(100);
        long start = client.timer.nanoTime();
        List<Long> sentAt = new ArrayList<>();

        while (!acquisition.result().isDone()) {
            RecordingProtocol.Call call = lock.calls().remove(0);
            if (call.op.equals("leave")) {
                call.answer(null);
                continue;
            }
            sentAt.add(TimeUnit.NANOSECONDS.toMillis(client.timer.nanoTime() - start));
            call.answer(Attempt.notAcquired(-1));
            client.millisUntilSent(lock, 1_000);
        }

        assertThat(acquisition.result()).isCompletedWithValue(false);
        assertThat(sentAt).allSatisfy(at -> assertThat(at).isLessThanOrEqualTo(100));
        assertThat(sentAt.get(sentAt.size() - 1)).as("the last attempt at the deadline").isEqualTo(100);
    }

    // ---- refusals, errors, a closed client

    @Test
    void aRefusalEndsABoundedWaitWithFalse() {
        LockAcquisition acquisition = start(10_000);

        lock.next("acquire").answer(new Attempt(false, -1, Attempt.NO_TOKEN, "a reader cannot take the write lock"));
        lock.next("leave").answer(null);

        assertThat(acquisition.result()).isCompletedWithValue(false);
        assertThat(client.wakeUps.subscribed()).as("waiting cannot help").isEmpty();
    }

    @Test
    void aRefusalEndsAnUnboundedWaitWithIllegalMonitorStateException() {
        LockAcquisition acquisition = start(FOREVER);

        lock.next("acquire").answer(new Attempt(false, -1, Attempt.NO_TOKEN, "a reader cannot take the write lock"));
        lock.next("leave").answer(null);

        assertThat(failure(acquisition)).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessage("a reader cannot take the write lock");
    }

    @Test
    void anErrorAnswerFromRedisFailsTheAcquisitionWithoutRetrying() {
        LockAcquisition acquisition = start(FOREVER);

        lock.next("acquire").fail(new RedisCommandException("WRONGTYPE", null));
        lock.next("leave").answer(null);

        assertThat(failure(acquisition)).isInstanceOf(RedisCommandException.class);
        assertThat(lock.calls()).isEmpty();
        assertThat(acquisition.lastUnanswered()).isNull();
    }

    @Test
    void anAttemptThatThrowsFailsTheAcquisitionWithItsException() {
        lock.throwOnAttempt(new IllegalArgumentException("bad lease"));
        LockAcquisition acquisition = start(FOREVER);

        lock.next("leave").answer(null);

        assertThat(failure(acquisition)).isInstanceOf(IllegalArgumentException.class).hasMessage("bad lease");
    }

    @Test
    void aClientClosedWhileParkedFailsTheAcquisitionWithIllegalStateException() {
        LockAcquisition acquisition = start(FOREVER);
        failsThenParks(5_000);

        client.wakeUps.close();
        lock.next("leave").answer(null);

        assertThat(failure(acquisition)).isInstanceOf(IllegalStateException.class)
                .hasMessage("the LockClient is closed");
        assertThat(client.wakeUps.open()).isZero();
    }

    // ---- cancels

    @Test
    void aCancelWhileParkedStopsAtOnceWithoutAnotherAttempt() {
        LockAcquisition acquisition = start(FOREVER);
        failsThenParks(5_000);

        acquisition.result().cancel(false);

        lock.next("leave").answer(null);
        assertThat(lock.calls()).isEmpty();
        assertThat(acquisition.settled()).isDone();
        assertThat(client.wakeUps.open()).isZero();
        assertThat(client.wakeUps.lastPark().woken()).as("the park was abandoned").isCompletedWithValue(false);
    }

    @Test
    void aCancelWhileWaitingForTheSubscriptionStopsWithoutAnotherAttempt() {
        client.wakeUps.confirmAtOnce(false);
        LockAcquisition acquisition = start(FOREVER);
        lock.next("acquire").answer(Attempt.notAcquired(5_000));

        acquisition.result().cancel(false);

        lock.next("leave").answer(null);
        assertThat(lock.calls()).isEmpty();
        assertThat(acquisition.settled()).isDone();
    }

    @Test
    void aCancelWhileAnAttemptIsInFlightThatFailsSettlesWithoutAnotherAttempt() {
        LockAcquisition acquisition = start(FOREVER);
        RecordingProtocol.Call attempt = lock.next("acquire");

        acquisition.result().cancel(false);
        assertThat(acquisition.settled()).as("the attempt is still out").isNotDone();
        attempt.answer(Attempt.notAcquired(5_000));

        lock.next("leave").answer(null);
        assertThat(lock.calls()).isEmpty();
        assertThat(acquisition.settled()).isDone();
    }

    @Test
    void aLockAcquiredAfterItsCallerCancelledIsReleasedAgain() {
        LockAcquisition acquisition = start(FOREVER);
        RecordingProtocol.Call attempt = lock.next("acquire");

        acquisition.result().cancel(false);
        attempt.answer(Attempt.ACQUIRED);

        RecordingProtocol.Call release = lock.next("release");
        assertThat(release.leaseMillis).as("one hold dropped, the lease not re-armed").isZero();
        assertThat(acquisition.settled()).as("settles once given back").isNotDone();
        release.answer(new Release(ReleaseOutcome.RELEASED, 0));
        assertThat(acquisition.settled()).isDone();
        assertThat(acquisition.result()).isCancelled();
        assertThat(client.watchdog.isRenewing(lock, OWNER)).isFalse();
    }

    @Test
    void aReleaseAfterCancelThatFailsStillSettles() {
        LockAcquisition acquisition = start(FOREVER);
        RecordingProtocol.Call attempt = lock.next("acquire");
        acquisition.result().cancel(false);
        attempt.answer(Attempt.ACQUIRED);

        lock.next("release").lose();

        assertThat(acquisition.settled()).isDone();
    }

    @Test
    void aWatchdogLeaseIsRenewedOnceHeldAndTheHookRunsBeforeTheCallerIsTold() {
        List<Boolean> toldWhenHookRan = new ArrayList<>();
        LockAcquisition acquisition = LockAcquisition.create(client, lock,
                AcquireRequest.of(OWNER, LeaseMillis.WATCHDOG, FOREVER, false, false));
        acquisition.beforeTold(() -> toldWhenHookRan.add(acquisition.result().isDone()), null);
        acquisition.begin();

        lock.next("acquire").answer(Attempt.ACQUIRED);

        assertThat(toldWhenHookRan).containsExactly(false);
        assertThat(acquisition.result()).isCompletedWithValue(true);
        assertThat(client.watchdog.isRenewing(lock, OWNER)).isTrue();
    }

    @Test
    void aCancelAsTheCallerIsToldReleasesWithTheWatchdogLeaseAndEndsTheRenewal() {
        LockAcquisition acquisition = LockAcquisition.create(client, lock,
                AcquireRequest.of(OWNER, LeaseMillis.WATCHDOG, FOREVER, false, false));
        List<String> undone = new ArrayList<>();
        acquisition.beforeTold(() -> acquisition.result().cancel(false), // the caller gives up just then
                () -> undone.add("untold"));
        acquisition.begin();

        lock.next("acquire").answer(Attempt.ACQUIRED);
        assertThat(undone).as("what the hook did is undone").containsExactly("untold");

        RecordingProtocol.Call release = lock.next("release");
        assertThat(release.leaseMillis).as("a re-entry keeps its renewed lease").isEqualTo(
                AcquireFixture.WATCHDOG_LEASE_MILLIS);
        release.answer(new Release(ReleaseOutcome.RELEASED, 0));
        assertThat(client.watchdog.isRenewing(lock, OWNER)).isFalse();
        assertThat(acquisition.settled()).isDone();
    }

    // ---- starts held back (see GrantWaits)

    @Test
    void anAcquisitionEndedBeforeItBeganAnswersFalseWithoutAskingRedis() {
        LockAcquisition acquisition = LockAcquisition.create(client, lock, request(FOREVER, false));

        acquisition.endBeforeBegin();

        assertThat(acquisition.result()).isCompletedWithValue(false);
        assertThat(acquisition.settled()).isDone();
        assertThat(acquisition.claimBegin()).as("too late to begin").isFalse();
        assertThat(lock.calls()).isEmpty();
    }

    @Test
    void anAcquisitionWhoseBeginWasClaimedCannotBeEndedBeforeIt() {
        LockAcquisition acquisition = LockAcquisition.create(client, lock, request(FOREVER, false));

        assertThat(acquisition.claimBegin()).isTrue();
        acquisition.endBeforeBegin();
        acquisition.begin();

        assertThat(acquisition.result()).isNotDone();
        lock.next("acquire").answer(Attempt.ACQUIRED);
        assertThat(acquisition.result()).isCompletedWithValue(true);
    }

    // ---- helpers

    /** The attempt in flight fails with {@code ttl}; subscribed at once, the next fails too: it parks. */
    private void failsThenParks(long ttl) {
        lock.next("acquire").answer(Attempt.notAcquired(ttl));
        lock.next("acquire").answer(Attempt.notAcquired(ttl));
        assertThat(client.wakeUps.parks()).isNotEmpty();
        assertThat(lock.calls()).isEmpty();
    }

    private LockAcquisition start(long waitMillis) {
        return LockAcquisition.start(client, lock, request(waitMillis, false));
    }

    private LockAcquisition spin(long waitMillis) {
        return LockAcquisition.start(client, lock,
                AcquireRequest.of(OWNER, LEASE, nanos(waitMillis), true, false));
    }

    static AcquireRequest request(long waitMillis, boolean fresh) {
        return AcquireRequest.of(OWNER, LEASE, nanos(waitMillis), false, fresh);
    }

    static long nanos(long waitMillis) {
        return waitMillis == FOREVER ? FOREVER : TimeUnit.MILLISECONDS.toNanos(waitMillis);
    }

    static Throwable failure(LockAcquisition acquisition) {
        assertThat(acquisition.result()).isCompletedExceptionally();
        try {
            acquisition.result().join();
            throw new AssertionError("not failed");
        } catch (CompletionException e) {
            return e.getCause();
        } catch (CancellationException e) {
            return e;
        }
    }
}
