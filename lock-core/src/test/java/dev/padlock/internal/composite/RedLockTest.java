package dev.padlock.internal.composite;

import static dev.padlock.internal.composite.MultiLockTest.causeOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.padlock.LockObserver.Kind;
import dev.padlock.LockObserver.Outcome;
import dev.padlock.RLock;
import dev.padlock.RedisUnavailableException;
import dev.padlock.internal.base.ManualTimer;
import dev.padlock.internal.observe.Observing;
import dev.padlock.internal.observe.RecordingObserver;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The red lock over three in-memory components on a manual timer: a quorum of two, rounds that
 * end on the timer, the validity after drift, retries within the wait, and late replies.
 */
class RedLockTest {
    private static final long OWNER = 7;
    private static final long TEN_SECONDS = 10_000;

    private final ManualTimer timer = new ManualTimer();
    private final List<String> journal = new ArrayList<>();
    private final FakeLock a = new FakeLock("a", journal);
    private final FakeLock b = new FakeLock("b", journal);
    private final FakeLock c = new FakeLock("c", journal);
    /** The client's turns, shared by its composites. */
    private final OwnerTurns turns = new OwnerTurns();
    private final RLock red = RedLock.of(services(null), a, b, c);

    private CompositeServices services(Observing observing) {
        return new CompositeServices(observing, timer, timer, turns);
    }

    private CompletableFuture<Boolean> tryLock(long waitMillis, long leaseMillis) {
        return red.tryLockAsync(waitMillis, leaseMillis, TimeUnit.MILLISECONDS, OWNER);
    }

    private int attempts(FakeLock lock) {
        return Collections.frequency(journal, "tryLock " + lock.getName());
    }

    // ---- quorum

    @Test
    void aMajorityAcquiredInOneRoundIsHeldAndTheRefusalIsLeftAlone() {
        c.refuses();

        assertThat(tryLock(0, TEN_SECONDS)).isCompletedWithValue(true);

        assertThat(journal).containsExactly("tryLock a", "tryLock b", "tryLock c");
        assertThat(List.of(a.lastAcquisition(), b.lastAcquisition(), c.lastAcquisition())).allSatisfy(attempt -> {
            assertThat(attempt.waitTime()).as("each attempt is one try").isZero();
            assertThat(attempt.leaseMillis()).isEqualTo(TEN_SECONDS);
            assertThat(attempt.threadId()).isEqualTo(OWNER);
        });
    }

    @Test
    void aRoundAsksEveryComponentAtOnce() {
        a.holdsBack();
        b.holdsBack();
        c.holdsBack();

        CompletableFuture<Boolean> held = tryLock(TEN_SECONDS, TEN_SECONDS);

        assertThat(journal).containsExactly("tryLock a", "tryLock b", "tryLock c");
        assertThat(held).isNotDone();
    }

    /** As the multi lock's (simulator seed 42): a component whose loss was told during the round counts for nothing. */
    @Test
    void aComponentWhoseLossWasToldDuringTheRoundDoesNotCountForTheMajority() {
        c.refuses();
        b.holdsBack();
        CompletableFuture<Boolean> held = tryLock(0, TEN_SECONDS);
        a.toldLostAt(timer.nanoTime());

        b.lastAcquisition().future().complete(true);

        assertThat(held).isCompletedWithValue(false);
    }

    @Test
    void withoutAMajorityWhatWasAcquiredIsGivenBack() {
        b.refuses();
        c.refuses();

        assertThat(tryLock(0, TEN_SECONDS)).isCompletedWithValue(false);

        assertThat(journal).endsWith("unlock a");
        assertThat(a.holds()).isZero();
    }

    @Test
    void aRoundEndsAsSoonAsAMajorityIsOutOfReachWithoutWaitingForTheTimer() {
        a.refuses();
        b.refuses();
        c.holdsBack();

        assertThat(tryLock(0, TEN_SECONDS)).isCompletedWithValue(false);
    }

    @Test
    void aReplyThatSaysAcquiredAfterItsRoundClosedIsGivenBack() {
        a.refuses();
        b.refuses();
        c.holdsBack();
        tryLock(0, TEN_SECONDS);

        c.answer(0, true);

        assertThat(journal).endsWith("unlock c");
        assertThat(c.holds()).isZero();
    }

    @Test
    void aMajorityWaitsForTheLastReplyOrTheRoundsEndAndALateReplyIsThenGivenBack() {
        c.holdsBack();
        CompletableFuture<Boolean> held = tryLock(0, TEN_SECONDS);
        assertThat(held).as("one reply may still come").isNotDone();

        timer.advance(50);
        assertThat(held).isCompletedWithValue(true);
        c.answer(0, true);

        assertThat(journal).endsWith("unlock c");
        assertThat(List.of(a.holds(), b.holds(), c.holds())).containsExactly(1, 1, 0);
    }

    // ---- rounds on the timer

    @Test
    void aRoundWithoutAMajorityInTimeEndsOnTheTimerAndGivesBackWhatItGot() {
        b.holdsBack();
        c.holdsBack();
        CompletableFuture<Boolean> held = tryLock(0, 1_000);

        timer.advance(49);
        assertThat(held).as("a round lasts 50 ms at least, even without wait").isNotDone();
        timer.advance(1);

        assertThat(held).isCompletedWithValue(false);
        assertThat(journal).endsWith("unlock a");
    }

    @Test
    void aRoundLastsATenthOfTheLease() {
        b.holdsBack();
        c.holdsBack();
        tryLock(TEN_SECONDS, 2_000);

        timer.advance(199);
        assertThat(journal).doesNotContain("unlock a");
        timer.advance(1);

        assertThat(journal).contains("unlock a");
    }

    @Test
    void aRoundWithAWatchdogLeaseLastsASecondAtMost() {
        b.holdsBack();
        c.holdsBack();
        red.tryLockAsync(TEN_SECONDS, -1, TimeUnit.MILLISECONDS, OWNER);

        timer.advance(999);
        assertThat(journal).doesNotContain("unlock a");
        timer.advance(1);

        assertThat(journal).contains("unlock a");
        assertThat(a.lastAcquisition().leaseTime()).as("each component's own watchdog lease").isNegative();
    }

    @Test
    void aMajorityAcquiredWithinItsValidityIsHeld() {
        holdAllBack();
        CompletableFuture<Boolean> held = tryLock(0, 50);
        timer.advance(47);

        answerAll(true);

        assertThat(held).as("validity 50 - 47 - 2 ms of drift = 1 ms").isCompletedWithValue(true);
    }

    @Test
    void aMajorityAcquiredTooLateForItsValidityIsGivenBack() {
        holdAllBack();
        CompletableFuture<Boolean> held = tryLock(0, 50);
        timer.advance(48);

        answerAll(true);

        assertThat(held).as("validity 50 - 48 - 2 ms of drift = 0").isCompletedWithValue(false);
        assertThat(journal).contains("unlock a", "unlock b", "unlock c");
        assertThat(List.of(a.holds(), b.holds(), c.holds())).containsOnly(0);
    }

    @Test
    void aFailedRoundIsTriedAgainWithinFiftyMillisecondsWhileWaitIsLeft() {
        b.refuses();
        c.refuses();
        CompletableFuture<Boolean> held = tryLock(1_000, TEN_SECONDS);
        assertThat(attempts(a)).isOne();
        b.grants();
        c.grants();

        timer.advance(50);

        assertThat(attempts(a)).isEqualTo(2);
        assertThat(held).isCompletedWithValue(true);
    }

    @Test
    void retriesStopWhenTheWaitRunsOut() {
        a.refuses();
        b.refuses();
        c.refuses();
        CompletableFuture<Boolean> held = tryLock(5, TEN_SECONDS);
        assertThat(held).isNotDone();

        timer.advance(5);

        assertThat(held).isCompletedWithValue(false);
        assertThat(attempts(a)).as("the retry came within the 5 ms left").isGreaterThanOrEqualTo(2);
        int attempts = attempts(a);
        timer.advance(TEN_SECONDS);
        assertThat(attempts(a)).isEqualTo(attempts);
    }

    // ---- failures, misuse, cancellation

    @Test
    void aComponentThatFailsCountsAsNotAcquired() {
        a.failsWith(new RedisUnavailableException("a is down", null));

        assertThat(tryLock(0, TEN_SECONDS)).isCompletedWithValue(true);
    }

    /**
     * Seed 10 ({@code -8732681812561115515:60}, reached with the async bound on): an owner holding
     * a red lock twice re-entered while a server that counts its holds failed, and a server where
     * its holds had been lost was claimed again (count 1). Held on that bare majority, the new hold
     * stood on one server that counts all three: after two unlocks, the owner's last hold had its
     * field on one server of three. A re-entry needs every server that counts the owner's holds.
     */
    @Test
    void aReentryIsNotHeldWhileAServerThatCountsTheOwnersHoldsIsMissed() {
        assertThat(tryLock(0, TEN_SECONDS)).isCompletedWithValue(true);
        assertThat(tryLock(0, TEN_SECONDS)).isCompletedWithValue(true);
        c.dropsItsHolds(); // its lease ran out: the owner's two holds are on a and b
        b.failsWith(new RedisUnavailableException("b is down", null));

        assertThat(tryLock(0, TEN_SECONDS)).as("a and c would be a majority").isCompletedWithValue(false);

        assertThat(List.of(a.holds(), b.holds(), c.holds())).as("what the re-entry took is given back")
                .containsExactly(2, 2, 0);
    }

    @Test
    void aReentryWhileAServerThatCountsNothingOfTheOwnerIsDownIsHeldOnTheOthers() {
        c.failsWith(new RedisUnavailableException("c is down", null));
        assertThat(tryLock(0, TEN_SECONDS)).isCompletedWithValue(true);

        assertThat(tryLock(0, TEN_SECONDS)).isCompletedWithValue(true);

        assertThat(List.of(a.holds(), b.holds())).containsOnly(2);
    }

    @Test
    void aMajorityThatFailsEndsTheAcquisitionNotHeldAndGivesBackTheRest() {
        a.failsWith(new RedisUnavailableException("a is down", null));
        b.failsWith(new RedisUnavailableException("b is down", null));

        assertThat(tryLock(0, TEN_SECONDS)).isCompletedWithValue(false);

        assertThat(c.holds()).isZero();
    }

    @Test
    void misuseReportedByAComponentFailsTheAcquisitionWithoutRetry() {
        IllegalStateException closed = new IllegalStateException("the LockClient is closed");
        a.throwsAtCall(closed);

        CompletableFuture<Boolean> held = tryLock(TEN_SECONDS, TEN_SECONDS);

        assertThat(causeOf(held)).isSameAs(closed);
        assertThat(List.of(b.holds(), c.holds())).containsOnly(0);
        timer.advance(TEN_SECONDS);
        assertThat(attempts(b)).isOne();
    }

    @Test
    void aCancelClosesTheRoundGivesBackWhatItGotAndLateRepliesToo() {
        b.holdsBack();
        c.holdsBack();
        CompletableFuture<Boolean> held = tryLock(TEN_SECONDS, TEN_SECONDS);

        held.cancel(false);
        assertThat(journal).endsWith("unlock a");
        b.answer(0, true);
        c.answer(0, false);

        assertThat(journal).containsExactly("tryLock a", "tryLock b", "tryLock c", "unlock a", "unlock b");
        assertThat(List.of(a.holds(), b.holds(), c.holds())).containsOnly(0);
        timer.advance(TEN_SECONDS);
        assertThat(attempts(a)).as("no round after the cancel").isOne();
    }

    @Test
    void aLeaseIsGivenInMillisecondsAndOneAtLeast() {
        red.tryLockAsync(0, 500, TimeUnit.MICROSECONDS, OWNER);

        assertThat(a.lastAcquisition().leaseTime()).isOne();
        assertThat(a.lastAcquisition().unit()).isEqualTo(TimeUnit.MILLISECONDS);
    }

    @Test
    void misuseIsRefusedAtTheCall() {
        assertThatThrownBy(() -> RedLock.of(services(null))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedLock.of(services(null), a, a)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> red.tryLockAsync(-1, -1, TimeUnit.SECONDS, OWNER))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(red::newCondition).isInstanceOf(UnsupportedOperationException.class);
        assertThat(RedLock.of(services(null), c, a, b).getName()).as("in the order given").isEqualTo("red[c,a,b]");
        assertThat(journal).isEmpty();
    }

    // ---- one owner's acquisitions, one after the other (issue 37, simulator seed 25)

    @Test
    void aSecondAcquisitionOfAnOwnerStartsOnlyOnceItsFirstHasSettled() {
        a.holdsBack();
        b.holdsBack();
        c.holdsBack();
        CompletableFuture<Boolean> first = tryLock(TEN_SECONDS, TEN_SECONDS);
        CompletableFuture<Boolean> second = tryLock(TEN_SECONDS, TEN_SECONDS);
        assertThat(journal).as("the second waits: its claims would merge with the first's")
                .containsExactly("tryLock a", "tryLock b", "tryLock c");

        a.answer(0, true);
        b.answer(0, true);
        c.answer(0, false);

        assertThat(first).isCompletedWithValue(true);
        assertThat(journal).as("then it runs, and re-enters what the first holds").hasSize(6).endsWith("tryLock c");
        a.answer(1, true);
        b.answer(1, true);
        c.answer(1, false);
        assertThat(second).isCompletedWithValue(true);
        assertThat(List.of(a.holds(), b.holds(), c.holds())).containsExactly(2, 2, 0);
    }

    @Test
    void aSecondAcquisitionWhoseWaitRunsOutBeforeItsTurnAnswersFalseWithoutAsking() {
        a.holdsBack();
        b.holdsBack();
        c.holdsBack();
        tryLock(TEN_SECONDS, TEN_SECONDS);
        CompletableFuture<Boolean> noWait = tryLock(0, TEN_SECONDS);
        CompletableFuture<Boolean> shortWait = tryLock(100, TEN_SECONDS);

        assertThat(noWait).isCompletedWithValue(false);
        timer.advance(100);

        assertThat(shortWait).isCompletedWithValue(false);
        assertThat(journal).hasSize(3);
    }

    @Test
    void aSecondAcquisitionCancelledBeforeItsTurnNeverAsks() {
        a.holdsBack();
        b.holdsBack();
        c.holdsBack();
        tryLock(TEN_SECONDS, TEN_SECONDS);
        CompletableFuture<Boolean> second = tryLock(TEN_SECONDS, TEN_SECONDS);

        second.cancel(false);
        answerAll(true);

        assertThat(journal).hasSize(3);
        assertThat(List.of(a.holds(), b.holds(), c.holds())).containsExactly(1, 1, 1);
    }

    /** The turns are the client's (issue 39): another object for the same red lock takes them too. */
    @Test
    void anotherObjectForTheSameRedLockWaitsForTheTurn() {
        holdAllBack();
        tryLock(TEN_SECONDS, TEN_SECONDS);
        RLock same = RedLock.of(services(null), c, b, a);

        CompletableFuture<Boolean> second = same.tryLockAsync(TEN_SECONDS, TEN_SECONDS, TimeUnit.MILLISECONDS, OWNER);
        assertThat(journal).as("the second waits its turn").hasSize(3);
        answerAll(true);

        assertThat(journal).hasSize(6);
        assertThat(second).isNotDone();
        a.answer(1, true);
        b.answer(1, true);
        c.answer(1, true);
        assertThat(second).isCompletedWithValue(true);
        assertThat(List.of(a.holds(), b.holds(), c.holds())).containsExactly(2, 2, 2);
        assertThat(turns.inFlight()).as("nothing kept once settled").isZero();
    }

    @Test
    void anotherOwnerDoesNotWaitForTheTurn() {
        a.holdsBack();
        b.holdsBack();
        c.holdsBack();
        tryLock(TEN_SECONDS, TEN_SECONDS);

        red.tryLockAsync(TEN_SECONDS, TEN_SECONDS, TimeUnit.MILLISECONDS, OWNER + 1);

        assertThat(journal).hasSize(6);
    }

    // ---- release and reads: what a majority says

    @Test
    void unlockSkipsTheComponentsNotHeld() {
        a.heldTimes(1);
        b.heldTimes(1);

        assertThat(red.unlockAsync(OWNER)).isCompletedWithValue(null);

        assertThat(List.of(a.holds(), b.holds())).containsOnly(0);
    }

    @Test
    void unlockOfARedLockNoComponentHoldsIsIllegalMonitorState() {
        assertThat(causeOf(red.unlockAsync(OWNER))).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("3 of 3 locks say so");
    }

    @Test
    void unlockThatReleasedNothingReportsTheFailureWhenTooFewSayNotHeld() {
        RedisUnavailableException bDown = new RedisUnavailableException("b is down", null);
        RedisUnavailableException cDown = new RedisUnavailableException("c is down", null);
        b.heldTimes(1).unlockFailsWith(bDown);
        c.heldTimes(1).unlockFailsWith(cDown);

        assertThat(causeOf(red.unlockAsync(OWNER))).isSameAs(bDown);
        assertThat(bDown.getSuppressed()).containsExactly(cDown);
    }

    @Test
    void forceUnlockIsFalseOnlyWhenAMajorityAnsweredNoneHeld() {
        c.readsFailWith(new RedisUnavailableException("c is down", null));
        assertThat(red.forceUnlockAsync()).isCompletedWithValue(false);

        RedisUnavailableException bDown = new RedisUnavailableException("b is down", null);
        b.readsFailWith(bDown);
        assertThat(causeOf(red.forceUnlockAsync())).isSameAs(bDown);

        a.heldTimes(1);
        assertThat(red.forceUnlockAsync()).as("one held is enough").isCompletedWithValue(true);
    }

    @Test
    void itIsLockedWhenAMajorityIsAndAFailedReadMattersOnlyWhenTheAnswerDependsOnIt() {
        a.heldTimes(1);
        c.readsFailWith(new RedisUnavailableException("c is down", null));
        assertThat(causeOf(red.isLockedAsync())).as("b alone cannot decide").isInstanceOf(RedisUnavailableException.class);

        b.heldTimes(1);

        assertThat(red.isLockedAsync()).isCompletedWithValue(true);
    }

    @Test
    void theHoldCountIsWhatAMajorityHasAtLeast() {
        a.heldTimes(3);
        b.heldTimes(2);

        assertThat(red.getHoldCountAsync(OWNER)).isCompletedWithValue(2);
    }

    @Test
    void theTimeToLiveIsALowerBoundWhileAMinorityDoesNotAnswer() {
        a.heldTimes(1).ttl(5_000);
        b.heldTimes(1).ttl(3_000);
        c.readsFailWith(new RedisUnavailableException("c is down", null));

        assertThat(red.remainTimeToLiveAsync()).isCompletedWithValue(3_000L);
    }

    // ---- observed

    @Test
    void anObservedRedLockAcquisitionIsToldAsARedLockWithItsWait() {
        RecordingObserver observer = new RecordingObserver();
        RLock observed = RedLock.of(services(new Observing(observer, timer)), a, b, c);
        c.holdsBack();
        observed.tryLockAsync(0, TEN_SECONDS, TimeUnit.MILLISECONDS, OWNER);

        timer.advance(50);

        assertThat(observer.onlyEnd().lockName()).isEqualTo("red[a,b,c]");
        assertThat(observer.onlyEnd().kind()).isEqualTo(Kind.RED);
        assertThat(observer.onlyEnd().outcome()).isEqualTo(Outcome.ACQUIRED);
        assertThat(observer.onlyEnd().waitNanos()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(50));
    }

    private void holdAllBack() {
        a.holdsBack();
        b.holdsBack();
        c.holdsBack();
    }

    private void answerAll(boolean acquired) {
        a.answer(0, acquired);
        b.answer(0, acquired);
        c.answer(0, acquired);
    }
}
