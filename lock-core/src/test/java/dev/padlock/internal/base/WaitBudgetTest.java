package dev.padlock.internal.base;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The wait left of an acquisition, on a manual clock. */
class WaitBudgetTest {
    private final ManualTimer clock = new ManualTimer();

    @ParameterizedTest
    @ValueSource(longs = {0, -1, Long.MIN_VALUE})
    void aWaitOfZeroOrLessIsOneAttemptAndAlreadySpent(long waitNanos) {
        WaitBudget budget = WaitBudget.of(waitNanos, clock);

        assertThat(budget.oneAttempt()).isTrue();
        assertThat(budget.forever()).isFalse();
        assertThat(budget.spent()).isTrue();
        assertThat(budget.remainingNanos()).isZero();
        assertThat(budget.remainingMillis()).isZero();
    }

    @ParameterizedTest
    @ValueSource(longs = {Long.MAX_VALUE, Long.MAX_VALUE / 4, Long.MAX_VALUE / 2})
    void aHugeWaitIsForeverAndNeverSpent(long waitNanos) {
        WaitBudget budget = WaitBudget.of(waitNanos, clock);
        clock.advance(TimeUnit.DAYS.toMillis(365));

        assertThat(budget.forever()).isTrue();
        assertThat(budget.spent()).isFalse();
        assertThat(budget.remainingNanos()).isEqualTo(WaitBudget.FOREVER);
        assertThat(budget.remainingMillis()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aBoundedWaitCountsDownOnTheClock() {
        WaitBudget budget = WaitBudget.of(TimeUnit.MILLISECONDS.toNanos(100), clock);
        assertThat(budget.remainingMillis()).isEqualTo(100);

        clock.advance(40);
        assertThat(budget.remainingMillis()).isEqualTo(60);
        assertThat(budget.spent()).isFalse();

        clock.advance(60);
        assertThat(budget.spent()).isTrue();
        assertThat(budget.remainingNanos()).isZero();
    }

    @Test
    void theMillisecondsLeftRoundUpSoAWaitNeverEndsEarly() {
        WaitBudget budget = WaitBudget.of(1, clock); // one nanosecond

        assertThat(budget.remainingMillis()).isEqualTo(1);
    }

    @Test
    void theTimeLeftIsNeverNegativePastTheDeadline() {
        WaitBudget budget = WaitBudget.of(TimeUnit.MILLISECONDS.toNanos(10), clock);
        clock.advance(1_000);

        assertThat(budget.remainingNanos()).isZero();
        assertThat(budget.remainingMillis()).isZero();
    }

    @Test
    void unansweredCallsMayGoOnToTheEndOfTheWaitPlusTheGrace() {
        WaitBudget budget = WaitBudget.of(TimeUnit.MILLISECONDS.toNanos(500), clock);
        long since = clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);

        assertThat(budget.boundMillisFrom(since, 2_000)).isEqualTo(300 + 2_000);
    }

    @Test
    void unansweredCallsAfterTheDeadlineGetOnlyTheGrace() {
        WaitBudget budget = WaitBudget.of(TimeUnit.MILLISECONDS.toNanos(500), clock);
        long since = clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(900);

        assertThat(budget.boundMillisFrom(since, 2_000)).isEqualTo(2_000);
    }

    @Test
    void anUnboundedWaitGivesUnansweredCallsOnlyTheGrace() {
        WaitBudget budget = WaitBudget.of(WaitBudget.FOREVER, clock);

        assertThat(budget.boundMillisFrom(clock.nanoTime(), 2_000)).isEqualTo(2_000);
    }

    @Test
    void oneAttemptGivesUnansweredCallsOnlyTheGrace() {
        WaitBudget budget = WaitBudget.of(0, clock);

        assertThat(budget.boundMillisFrom(clock.nanoTime(), 2_000)).isEqualTo(2_000);
    }
}
