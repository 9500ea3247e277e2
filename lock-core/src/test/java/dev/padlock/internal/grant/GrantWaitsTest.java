package dev.padlock.internal.grant;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.internal.acquire.AcquireFixture;
import dev.padlock.internal.acquire.PendingAcquire;
import dev.padlock.internal.acquire.RecordingProtocol;
import dev.padlock.internal.protocol.GrantKind;
import dev.padlock.internal.protocol.LockProtocol.Attempt;
import dev.padlock.internal.protocol.LockProtocol.Release;
import dev.padlock.internal.protocol.LockProtocol.ReleaseOutcome;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Waits with a place in a line on Redis, without Redis: one wait per kind, lock and owner runs at a
 * time; a later one starts once the earlier ones have settled, or ends {@code false} without asking
 * Redis when its wait runs out or it is cancelled first. Grant messages go to the running wait by
 * nonce; a grant to a place left behind is given back.
 */
class GrantWaitsTest {
    private static final long LEASE = 10_000;
    private static final long FOREVER = Long.MAX_VALUE;
    /** A read-write lock's side: a kind whose grant writes its owner's since itself. */
    private static final char WRITE = 'w';

    private final AcquireFixture client = new AcquireFixture();
    private final RecordingProtocol fair = new RecordingProtocol("orders").granting(GrantKind.FAIR, true);
    private final GrantWaits waits = new GrantWaits();

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    void eachWaitTakesAPlaceNonceOfItsOwn() {
        start(1, FOREVER);
        long first = parks(fair);
        start(2, FOREVER);
        long second = parks(fair);

        assertThat(first).isPositive();
        assertThat(second).isPositive().isNotEqualTo(first);
    }

    @Test
    void aSecondWaitOfTheSameOwnerStartsOnlyOnceTheFirstHasSettled() {
        PendingAcquire first = start(1, FOREVER);
        long place = parks(fair);

        PendingAcquire second = start(1, FOREVER);
        assertThat(fair.calls()).as("a place on Redis is one owner's").isEmpty();
        waits.onGranted(new GrantMessage(GrantKind.FAIR, 1, place, "orders"));

        assertThat(first.result()).isCompletedWithValue(true);
        fair.next("acquire").answer(Attempt.ACQUIRED); // the second re-enters
        assertThat(second.result()).isCompletedWithValue(true);
    }

    @Test
    void aSecondWaitWhoseWaitRunsOutBeforeItsTurnAnswersFalseWithoutRedis() {
        PendingAcquire first = start(1, FOREVER);
        parks(fair);

        PendingAcquire second = start(1, 100);
        client.timer.advance(100);

        assertThat(second.result()).isCompletedWithValue(false);
        assertThat(second.settled()).isDone();
        assertThat(fair.calls()).isEmpty();
        assertThat(first.result()).isNotDone();
    }

    @Test
    void aSecondWaitCancelledBeforeItsTurnEndsWithoutRedis() {
        PendingAcquire first = start(1, FOREVER);
        long place = parks(fair);
        PendingAcquire second = start(1, FOREVER);

        second.result().cancel(false);
        assertThat(second.settled()).isDone();
        waits.onGranted(new GrantMessage(GrantKind.FAIR, 1, place, "orders"));

        assertThat(first.result()).isCompletedWithValue(true);
        assertThat(fair.calls()).as("its turn came after it ended: it never began").isEmpty();
    }

    @Test
    void aWaitThatEndedBeforeItsTurnDoesNotLetALaterOneOvertakeTheFirst() {
        start(1, FOREVER);
        long place = parks(fair);
        start(1, 100);
        PendingAcquire third = start(1, FOREVER);

        client.timer.advance(100); // the second ends while the first still waits
        assertThat(fair.calls()).isEmpty();
        waits.onGranted(new GrantMessage(GrantKind.FAIR, 1, place, "orders"));

        fair.next("acquire").answer(Attempt.ACQUIRED);
        assertThat(third.result()).isCompletedWithValue(true);
    }

    @Test
    void waitsOfOtherOwnersOrLocksDoNotHoldEachOtherBack() {
        start(1, FOREVER);
        parks(fair);
        RecordingProtocol other = new RecordingProtocol("invoices").granting(GrantKind.FAIR, true);

        start(2, FOREVER);
        fair.next("acquire");
        waits.start(other, client, LEASE, 1, FOREVER, false, null);
        other.next("acquire");
    }

    /**
     * Found by the simulator (lock-sim, issue 25): a one-shot of an owner whose wait stood in line
     * landed beside it, and the wait's next attempt, which finds its own grant by the owner's field,
     * took the one-shot's hold for it: two acquisitions told, one hold on Redis.
     */
    @Test
    void aOneShotBesideTheSameOwnersWaitIsNotAcquiredAndSendsNothing() {
        start(1, FOREVER);
        parks(fair);

        PendingAcquire oneShot = start(1, 0);

        assertThat(oneShot.result()).isCompletedWithValue(false);
        assertThat(oneShot.settled()).isDone();
        assertThat(fair.calls()).as("its turn is not now: nothing is sent").isEmpty();
    }

    /**
     * Issue 37 (simulator seed 404): two one-shots of one owner in flight at once, after its unlock
     * went unconfirmed, each claimed the owner's field (a new count of 1) and both were told they
     * held, once on Redis. The second goes once the first has settled.
     */
    @Test
    void aOneShotGoesOnceTheSameOwnersOneShotInFlightHasSettled() {
        PendingAcquire first = start(1, 0);
        RecordingProtocol.Call attempt = fair.next("acquire");
        PendingAcquire second = start(1, 0);
        assertThat(fair.calls()).as("it waits for the first").isEmpty();

        attempt.answer(Attempt.ACQUIRED);
        assertThat(first.result()).isCompletedWithValue(true);

        fair.next("acquire").answer(Attempt.ACQUIRED); // now a re-entry, counted on Redis
        assertThat(second.result()).isCompletedWithValue(true);
    }

    @Test
    void aOneShotCancelledWhileTheSameOwnersOneShotIsInFlightSendsNothing() {
        start(1, 0);
        RecordingProtocol.Call attempt = fair.next("acquire");
        PendingAcquire second = start(1, 0);

        second.result().cancel(false);
        attempt.answer(Attempt.notAcquired(1_000));

        assertThat(fair.calls()).isEmpty();
        assertThat(second.settled()).isDone();
    }

    @Test
    void aOneShotReEntryAfterTheOwnersWaitWasGrantedGoesStraightToRedis() {
        PendingAcquire first = start(1, FOREVER);
        long place = parks(fair);
        waits.onGranted(new GrantMessage(GrantKind.FAIR, 1, place, "orders"));
        assertThat(first.result()).isCompletedWithValue(true);

        PendingAcquire reentry = start(1, 0);

        fair.next("acquire").answer(Attempt.ACQUIRED);
        assertThat(reentry.result()).isCompletedWithValue(true);
    }

    @Test
    void aOneShotWithoutAnEarlierWaitGoesStraightToRedis() {
        PendingAcquire oneShot = start(1, 0);

        RecordingProtocol.Call attempt = fair.next("acquire");
        assertThat(attempt.willWait).isFalse();
        assertThat(attempt.nonce).as("it takes no place").isZero();
        attempt.answer(Attempt.notAcquired(5_000));
        assertThat(oneShot.result()).isCompletedWithValue(false);
    }

    @Test
    void aWaitThatStartsWhileAOneShotOfTheSameOwnerIsInFlightStartsOnceItHasSettled() {
        PendingAcquire oneShot = start(1, 0);
        RecordingProtocol.Call attempt = fair.next("acquire");

        PendingAcquire wait = start(1, FOREVER);
        assertThat(fair.calls()).as("the wait starts after the one-shot").isEmpty();
        attempt.answer(Attempt.ACQUIRED);

        assertThat(oneShot.result()).isCompletedWithValue(true);
        fair.next("acquire").answer(Attempt.ACQUIRED); // the wait re-enters
        assertThat(wait.result()).isCompletedWithValue(true);
    }

    @Test
    void aGrantMessageGoesToTheRunningWaitOfItsKindLockOwnerAndNonce() {
        PendingAcquire first = start(1, FOREVER);
        long place = parks(fair);

        waits.onGranted(new GrantMessage(WRITE, 1, place, "orders"));
        waits.onGranted(new GrantMessage(GrantKind.FAIR, 2, place, "orders"));
        waits.onGranted(new GrantMessage(GrantKind.FAIR, 1, place, "invoices"));
        waits.onGranted(new GrantMessage(GrantKind.FAIR, 1, place + 100, "orders"));
        assertThat(first.result()).as("none of those was its grant").isNotDone();

        waits.onGranted(new GrantMessage(GrantKind.FAIR, 1, place, "orders"));
        assertThat(first.result()).isCompletedWithValue(true);
        assertThat(fair.calls()).isEmpty();
    }

    @Test
    void aGrantForAPlaceLeftBehindIsGivenBackOnce() {
        PendingAcquire first = start(1, 300);
        long place = parks(fair);
        client.timer.advance(300);
        fair.next("acquire").answer(Attempt.notAcquired(5_000));
        fair.next("leave").lose(); // its place may still be in line
        assertThat(first.result()).isCompletedWithValue(false);

        waits.onGranted(new GrantMessage(GrantKind.FAIR, 1, place, "orders"));
        waits.onGranted(new GrantMessage(GrantKind.FAIR, 1, place, "orders"));

        RecordingProtocol.Call giveBack = fair.next("release");
        assertThat(giveBack.owner).isEqualTo(1);
        assertThat(fair.calls()).isEmpty();
    }

    /**
     * Regression: the place left behind was noted only once the acquisition had settled, after its
     * caller was told and after it left the running waits; a grant message that came in between
     * (here: while the caller is told) found neither, was dropped, and held the lock for nobody
     * until the lease ran out.
     */
    @Test
    void aGrantThatComesWhileTheCallerOfALeftBehindPlaceIsToldIsStillGivenBack() {
        PendingAcquire first = start(1, 300);
        long place = parks(fair);
        first.result().whenComplete((acquired, failure) ->
                waits.onGranted(new GrantMessage(GrantKind.FAIR, 1, place, "orders")));
        client.timer.advance(300);
        fair.next("acquire").answer(Attempt.notAcquired(5_000));

        fair.next("leave").lose();

        assertThat(first.result()).isCompletedWithValue(false);
        assertThat(fair.next("release").owner).isEqualTo(1);
        waits.onGranted(new GrantMessage(GrantKind.FAIR, 1, place, "orders"));
        assertThat(fair.calls()).as("given back once").isEmpty();
    }

    /**
     * Issue 37, case 8: a leave whose reply was lost is sent again; meanwhile the owner's next
     * acquisition waits, since that leave, finding a hold of the owner with the place out of line,
     * would take it for a grant and give it back.
     */
    @Test
    void theOwnersNextAcquisitionWaitsForTheLeaveSentAgain() {
        PendingAcquire first = start(1, 300);
        parks(fair);
        client.timer.advance(300);
        fair.next("acquire").answer(Attempt.notAcquired(5_000));
        fair.next("leave").lose();
        assertThat(first.result()).isCompletedWithValue(false);
        assertThat(first.settled()).as("its leave is sent again").isNotDone();

        PendingAcquire next = waits.start(fair, client, LEASE, 1, 0, false, null);
        assertThat(fair.calls()).isEmpty();
        client.timer.advance(10);
        fair.next("leave").answer(false);

        assertThat(first.settled()).isDone();
        fair.next("acquire").answer(Attempt.ACQUIRED);
        assertThat(next.result()).isCompletedWithValue(true);
    }

    @Test
    void aGrantToAPlaceLeftBehindIsGivenBackOnceThoughTheLeaveSentAgainFindsItToo() {
        PendingAcquire first = start(1, 300);
        long place = parks(fair);
        client.timer.advance(300);
        fair.next("acquire").answer(Attempt.notAcquired(5_000));
        fair.next("leave").lose();

        waits.onGranted(new GrantMessage(GrantKind.FAIR, 1, place, "orders"));
        RecordingProtocol.Call giveBack = fair.next("release");
        client.timer.advance(10);
        fair.next("leave").answer(true); // it ran before the give-back: it kept the grant

        assertThat(fair.calls()).as("given back once").isEmpty();
        giveBack.answer(new Release(ReleaseOutcome.RELEASED, 0));
        assertThat(first.settled()).isDone();
    }

    /**
     * Simulator seed 25 (the fair component of a multi lock): an attempt of a wait, sent before a
     * grant to its place and run after a force unlock had removed that grant's field, took the place
     * again at the tail; the wait held by the grant, and a later grant to the place taken again held
     * the lock for nobody, under the owner's next acquisition, which re-entered on it. A grant
     * removes its place from the line, so a second grant to a place whose wait held is given back.
     */
    @Test
    void aSecondGrantToAPlaceWhoseWaitHeldByTheFirstIsGivenBack() {
        PendingAcquire first = start(1, FOREVER);
        long place = parks(fair);
        waits.onGranted(new GrantMessage(GrantKind.FAIR, 1, place, "orders"));
        assertThat(first.result()).isCompletedWithValue(true);

        waits.onGranted(new GrantMessage(GrantKind.FAIR, 1, place, "orders"));

        assertThat(fair.next("release").owner).isEqualTo(1);
        waits.onGranted(new GrantMessage(GrantKind.FAIR, 1, place, "orders"));
        assertThat(fair.calls()).as("given back once").isEmpty();
    }

    /**
     * Simulator seed 5 (the fair component of a multi lock, under a stalled server): the wait's
     * caller gave up at its bound while an attempt was unanswered; the grant to its place came, so
     * the wait held and released the hold again, but its caller had not been told, and the place
     * taken again by that attempt was not noted. A later grant to it held the lock for nobody, under
     * the owner's next acquisition, which re-entered on it: a hold renewed for ever.
     */
    @Test
    void aSecondGrantToAPlaceWhoseCancelledWaitHeldByTheFirstIsGivenBack() {
        PendingAcquire first = start(1, FOREVER);
        long place = parks(fair);
        client.timer.advance(5_000); // the lock's TTL: it looks again
        RecordingProtocol.Call attempt = fair.next("acquire"); // unanswered
        first.result().cancel(false);
        waits.onGranted(new GrantMessage(GrantKind.FAIR, 1, place, "orders"));
        attempt.lose();
        fair.next("release").answer(new Release(ReleaseOutcome.RELEASED, 0)); // held after the cancel: released
        assertThat(first.settled()).isDone();

        waits.onGranted(new GrantMessage(GrantKind.FAIR, 1, place, "orders"));

        assertThat(fair.next("release").owner).as("the second grant given back").isEqualTo(1);
    }

    /**
     * Simulator seeds 9 and 10 (the write and the read lock): an owner told on silence that it lost
     * the lock still had its count on Redis; its next acquisition added to it, and the leftover
     * outlived every unlock, renewed under later holds. After a loss told, the owner's next
     * acquisition starts a new count, as after an unconfirmed unlock.
     */
    /**
     * Simulator seed 101 (a fair lock): a release's reply was lost while a cancelled re-entry of the
     * same owner was still in flight. The release's give-back counted what Redis had, that re-entry
     * included, against the holds the owner kept, and gave one back; the re-entry's own give-back
     * took another, and the owner's kept hold went. The count waits for such an acquisition.
     */
    @Test
    void theGiveBackOfAReleaseInDoubtWaitsForTheOwnersAcquisitionInFlight() {
        start(1, 0);
        fair.next("acquire").answer(Attempt.ACQUIRED);
        start(1, 0);
        fair.next("acquire").answer(Attempt.ACQUIRED);
        PendingAcquire third = start(1, 0);
        RecordingProtocol.Call attempt = fair.next("acquire"); // sent, not answered

        waits.released(fair, 1);
        assertThat(waits.releaseLost(fair, 1, client)).as("one hold stays").isTrue();
        client.timer.advance(1_000);
        assertThat(fair.calls()).as("the re-entry in flight may have landed: not yet").isEmpty();

        attempt.answer(Attempt.ACQUIRED);
        assertThat(third.result()).isCompletedWithValue(true);
        client.timer.advance(1_000);

        assertThat(fair.next("confirmReentry").leaseMillis).as("the holds the owner has").isEqualTo(2);
    }

    @Test
    void afterALossToldTheOwnersNextAcquisitionStartsANewCount() {
        waits.leaseLost(fair.localKey(), 1);

        start(1, FOREVER);

        assertThat(fair.next("acquireNewCount").owner).isEqualTo(1);
    }

    /**
     * LockModelTest (seed 7, Redis 6.2): an owner's write holds with a fixed lease ran out while
     * its read hold, with the watchdog's lease, kept the hash alive; Redis still counted them, and
     * the owner's next write acquisition added to them: told 1, Redis 3. Holds that ran out are
     * not added to: the next acquisition starts a new count.
     */
    @Test
    void theNextAcquisitionAfterTheOwnersFixedLeaseRanOutStartsANewCount() {
        RecordingProtocol write = new RecordingProtocol("orders").granting(WRITE, true);
        waits.start(write, client, LEASE, 1, 0, false, null);
        write.next("acquire").answer(Attempt.ACQUIRED);
        waits.start(write, client, LEASE, 1, 0, false, null);
        write.next("acquire").answer(Attempt.ACQUIRED);
        client.timer.advance(2 * LEASE); // a write re-entry adds its lease to what was left

        waits.start(write, client, LEASE, 1, FOREVER, false, null);

        assertThat(write.next("acquireNewCount").owner).isEqualTo(1);
    }

    @Test
    void aFixedLeaseThatHasNotRunOutIsAddedTo() {
        RecordingProtocol write = new RecordingProtocol("orders").granting(WRITE, true);
        waits.start(write, client, LEASE, 1, 0, false, null);
        write.next("acquire").answer(Attempt.ACQUIRED);
        client.timer.advance(LEASE - 1);

        waits.start(write, client, LEASE, 1, 0, false, null);

        assertThat(write.next("acquire").owner).isEqualTo(1);
    }

    @Test
    void aGrantForAPlaceThatWasLeftIsDropped() {
        PendingAcquire first = start(1, 300);
        long place = parks(fair);
        client.timer.advance(300);
        fair.next("acquire").answer(Attempt.notAcquired(5_000));
        fair.next("leave").answer(false);
        assertThat(first.result()).isCompletedWithValue(false);

        waits.onGranted(new GrantMessage(GrantKind.FAIR, 1, place, "orders"));

        assertThat(fair.calls()).as("the leave script kept a grant that reached it").isEmpty();
    }

    @Test
    void aFairGrantNotesItsSinceAThirdOfALookIntervalLater() {
        start(1, FOREVER);
        long place = parks(fair);
        waits.onGranted(new GrantMessage(GrantKind.FAIR, 1, place, "orders"));

        long after = AcquireFixture.LOOK_MILLIS / 3;
        client.timer.advance(after - 1);
        assertThat(fair.calls()).isEmpty();
        client.timer.advance(1);

        RecordingProtocol.Call note = fair.next("noteSince");
        assertThat(note.leaseMillis).as("how long ago it was granted").isEqualTo(after);
    }

    @Test
    void aReleaseBeforeTheSinceNoteCancelsIt() {
        start(1, FOREVER);
        long place = parks(fair);
        waits.onGranted(new GrantMessage(GrantKind.FAIR, 1, place, "orders"));

        waits.released(fair, 1);
        client.timer.advance(AcquireFixture.LOOK_MILLIS);

        assertThat(fair.calls()).isEmpty();
    }

    @Test
    void aGrantOfAKindWhoseGrantWritesTheSinceIsNotNoted() {
        RecordingProtocol write = new RecordingProtocol("orders").granting(WRITE, true);
        waits.start(write, client, LEASE, 1, FOREVER, false, null);
        long place = parks(write);
        waits.onGranted(new GrantMessage(WRITE, 1, place, "orders"));

        client.timer.advance(AcquireFixture.LOOK_MILLIS);

        assertThat(write.calls()).isEmpty();
    }

    @Test
    void theHeldHookRunsBeforeTheCallerIsTold() {
        List<Boolean> toldWhenHookRan = new ArrayList<>();
        PendingAcquire[] acquisition = new PendingAcquire[1];
        acquisition[0] = waits.start(fair, client, LEASE, 1, FOREVER, false,
                () -> toldWhenHookRan.add(acquisition[0].result().isDone()));

        fair.next("acquire").answer(Attempt.ACQUIRED);

        assertThat(toldWhenHookRan).containsExactly(false);
    }

    /**
     * A cancel that comes after the held hook counted a hold and before the caller is told: the
     * acquisition gives its hold back, and the count of holds told drops it again, so a later
     * release in doubt gives back by the holds the owner was really told of.
     */
    @Test
    void aHoldCancelledAfterItWasCountedAndBeforeItWasToldIsNotCounted() {
        start(1, 0);
        fair.next("acquire").answer(Attempt.ACQUIRED);
        PendingAcquire[] cancelled = new PendingAcquire[1];
        cancelled[0] = waits.start(fair, client, LEASE, 1, 0, false, () -> cancelled[0].result().cancel(false));
        fair.next("acquire").answer(Attempt.ACQUIRED);
        assertThat(cancelled[0].result()).isCancelled();
        fair.next("release").answer(new Release(ReleaseOutcome.STILL_HELD, 0));
        start(1, 0);
        fair.next("acquire").answer(Attempt.ACQUIRED);

        waits.released(fair, 1);
        assertThat(waits.releaseLost(fair, 1, client)).as("one hold stays").isTrue();
        client.timer.advance(1_000);

        assertThat(fair.next("confirmReentry").leaseMillis).as("the holds the owner has").isEqualTo(1);
    }

    /** The wait in flight fails, subscribes, fails again in line and parks; its place nonce. */
    private long parks(RecordingProtocol lock) {
        lock.next("acquire").answer(Attempt.notAcquired(5_000));
        RecordingProtocol.Call inLine = lock.next("acquire");
        inLine.answer(Attempt.notAcquired(5_000));
        assertThat(lock.calls()).isEmpty();
        return inLine.nonce;
    }

    private PendingAcquire start(long owner, long waitMillis) {
        long waitNanos = waitMillis == FOREVER ? FOREVER : TimeUnit.MILLISECONDS.toNanos(waitMillis);
        return waits.start(fair, client, LEASE, owner, waitNanos, false, null);
    }
}
