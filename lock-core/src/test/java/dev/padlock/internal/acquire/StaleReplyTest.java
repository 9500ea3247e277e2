package dev.padlock.internal.acquire;

import static dev.padlock.internal.acquire.LockAcquisitionTest.request;
import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.internal.protocol.GrantKind;
import dev.padlock.internal.protocol.LockProtocol.Attempt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Never told "held" on a stale reply (issue 27; the simulator's {@code STALE_AFTER_PAUSE}): a
 * reply or grant read after the lease it set could have run out, counted from the send of the
 * attempt it answers (less 1% and 2 ms of drift), is not taken alone. The owner's lease is set
 * again first; only a reply that finds the field tells the caller. Manual clock, no Redis.
 */
class StaleReplyTest {
    private static final long FOREVER = LockAcquisition.FOREVER;
    /** The request's lease, 10 s: a reply read 9,898 ms or more after its send is too late. */
    private static final long TOO_LATE = 10_000 - 100 - 2;
    private static final long NONCE = 7;

    private final AcquireFixture client = new AcquireFixture();
    private final RecordingProtocol lock = new RecordingProtocol("orders");

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    void aReplyReadInTimeIsTakenAlone() {
        LockAcquisition acquisition = LockAcquisition.start(client, lock, request(FOREVER, false));
        RecordingProtocol.Call attempt = lock.next("acquire");
        client.timer.advance(TOO_LATE - 1);
        attempt.answer(Attempt.ACQUIRED);

        assertThat(acquisition.result()).isCompletedWithValue(true);
        assertThat(lock.calls()).isEmpty();
    }

    @Test
    void aReplyReadAfterItsLeaseCouldHaveRunOutIsConfirmedAgainBeforeTheCallerIsTold() {
        LockAcquisition acquisition = LockAcquisition.start(client, lock, request(FOREVER, false));
        RecordingProtocol.Call attempt = lock.next("acquire");
        client.timer.advance(TOO_LATE); // a pause between the send and the read of the reply
        attempt.answer(Attempt.ACQUIRED);

        assertThat(acquisition.result()).as("not on that reply alone").isNotDone();
        RecordingProtocol.Call renew = lock.next("renew");
        assertThat(renew.leaseMillis).as("the lease the caller asked for, set again").isEqualTo(10_000);
        renew.answer(true);

        assertThat(acquisition.result()).isCompletedWithValue(true);
    }

    @Test
    void aStaleHoldThatRedisNoLongerHasIsNotToldAndTheWaitGoesOn() {
        LockAcquisition acquisition = LockAcquisition.start(client, lock, request(FOREVER, false));
        RecordingProtocol.Call attempt = lock.next("acquire");
        client.timer.advance(TOO_LATE + 5_000);
        attempt.answer(Attempt.ACQUIRED);
        lock.next("renew").answer(false); // the lease ran out meanwhile, and someone else may hold

        assertThat(acquisition.result()).isNotDone();
        lock.next("acquire").answer(Attempt.ACQUIRED);
        assertThat(acquisition.result()).isCompletedWithValue(true);
    }

    @Test
    void aStaleHoldNotFoundEndsABoundedWaitThatRanOutWithFalse() {
        LockAcquisition acquisition = LockAcquisition.start(client, lock, request(1_000, false));
        RecordingProtocol.Call attempt = lock.next("acquire");
        client.timer.advance(TOO_LATE);
        attempt.answer(Attempt.ACQUIRED);
        lock.next("renew").answer(false);

        lock.next("leave").answer(null); // the attempt was sent as one that would wait: its place goes

        assertThat(acquisition.result()).isCompletedWithValue(false);
    }

    @Test
    void aConfirmationThatIsItselfReadLateIsConfirmedAgain() {
        LockAcquisition acquisition = LockAcquisition.start(client, lock, request(FOREVER, false));
        RecordingProtocol.Call attempt = lock.next("acquire");
        client.timer.advance(TOO_LATE);
        attempt.answer(Attempt.ACQUIRED);
        RecordingProtocol.Call renew = lock.next("renew");
        client.timer.advance(TOO_LATE);
        renew.answer(true);

        assertThat(acquisition.result()).isNotDone();
        lock.next("renew").answer(true);
        assertThat(acquisition.result()).isCompletedWithValue(true);
    }

    @Test
    void aGrantReadLateIsConfirmedAgainAndRevokedWhenNotFound() {
        RecordingProtocol line = new RecordingProtocol("orders").claims().granting(GrantKind.PLAIN, true);
        LockAcquisition acquisition = LockAcquisition.start(client, line, request(FOREVER, true).inLine(NONCE, false));
        line.next("claim").answer(Attempt.notAcquired(60_000));
        line.next("claim").answer(Attempt.notAcquired(60_000));
        assertThat(client.wakeUps.parks()).hasSize(1);
        client.timer.advance(TOO_LATE); // parked on a 60 s lease; the grant is read this late

        assertThat(acquisition.grant(NONCE)).isTrue();
        assertThat(acquisition.result()).isNotDone();
        line.next("renew").answer(false);

        assertThat(acquisition.result()).as("the grant is revoked, the loop asks again").isNotDone();
        line.next("claim").answer(Attempt.ACQUIRED);
        assertThat(acquisition.result()).isCompletedWithValue(true);
    }
    /**
     * Issue 37, case 10 (the fault soak's two holders): a grant written during a pause, whose lease
     * ran out before the waiter's next attempt ran, is read as that attempt answers "not acquired".
     * It is not timed from that attempt's send (it may be older): Redis is asked first.
     */
    @Test
    void aGrantReadWithARefusalIsNotTimedFromThatAttemptsSend() {
        RecordingProtocol line = new RecordingProtocol("orders").claims().granting(GrantKind.PLAIN, true);
        LockAcquisition acquisition = LockAcquisition.start(client, line, request(FOREVER, true).inLine(NONCE, false));
        line.next("claim").answer(Attempt.notAcquired(1_000));
        line.next("claim").answer(Attempt.notAcquired(1_000));
        client.timer.advance(TOO_LATE); // paused: the grant was written, and ran out, meanwhile
        RecordingProtocol.Call afterPause = line.next("claim"); // the park ended: an attempt goes out

        assertThat(acquisition.grant(NONCE)).isTrue(); // the grant is read as it goes
        afterPause.answer(Attempt.notAcquired(1_000)); // it ran after the grant's lease ended

        assertThat(acquisition.result()).as("not on the grant alone").isNotDone();
        line.next("renew").answer(false);
        assertThat(acquisition.result()).as("the grant is revoked, the loop asks again").isNotDone();
        line.next("claim").answer(Attempt.ACQUIRED);
        assertThat(acquisition.result()).isCompletedWithValue(true);
    }
    /**
     * Issue 37, case 10 ({@code PausedLeaseHolderTest} under load): the waiter's JVM was stopped
     * while a release granted it the lock; on waking, the park's timeout sent an attempt whose
     * refusal was read before the grant message. Timed from that attempt's send, the grant looked
     * fresh, though it had run out during the stop and another owner held the lock. A grant
     * message carries no time: it is timed from when its place could first exist.
     */
    @Test
    void aGrantReadAfterTheRefusalOfAnAttemptSentOnWakingIsTimedFromTheWaitsStart() {
        RecordingProtocol line = new RecordingProtocol("orders").claims().granting(GrantKind.PLAIN, true);
        LockAcquisition acquisition = LockAcquisition.start(client, line, request(FOREVER, true).inLine(NONCE, false));
        line.next("claim").answer(Attempt.notAcquired(1_000));
        line.next("claim").answer(Attempt.notAcquired(1_000));
        client.timer.advance(TOO_LATE); // stopped: the grant was written, and ran out, meanwhile
        line.next("claim").answer(Attempt.notAcquired(1_000)); // sent on waking, answered first

        assertThat(acquisition.grant(NONCE)).isTrue(); // the grant message, read last

        assertThat(acquisition.result()).as("not on the grant alone").isNotDone();
        line.next("renew").answer(false);
        assertThat(acquisition.result()).as("the grant is revoked, the loop asks again").isNotDone();
    }

    /**
     * Issue 37 (simulator replay -4588441521579527322:60): a grant written while its waiter was
     * paused, then force-unlocked, read with the refusal of the attempt sent on waking. Its lease
     * was long, so no timing could tell: the refusal says the field was gone, and Redis is asked.
     */
    @Test
    void aGrantReadWithARefusalIsConfirmedHoweverLongItsLease() {
        RecordingProtocol line = new RecordingProtocol("orders").claims().granting(GrantKind.PLAIN, true);
        LockAcquisition acquisition = LockAcquisition.start(client, line, request(FOREVER, true).inLine(NONCE, false));
        line.next("claim").answer(Attempt.notAcquired(1_000));
        RecordingProtocol.Call inLine = line.next("claim");

        assertThat(acquisition.grant(NONCE)).isTrue();
        inLine.answer(Attempt.notAcquired(1_000)); // sent before the grant, or run after it was removed

        assertThat(acquisition.result()).as("not on the grant alone").isNotDone();
        line.next("renew").answer(false);
        assertThat(acquisition.result()).isNotDone();
        line.next("claim").answer(Attempt.ACQUIRED);
        assertThat(acquisition.result()).isCompletedWithValue(true);
    }
}
