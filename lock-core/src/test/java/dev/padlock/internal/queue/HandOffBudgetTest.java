package dev.padlock.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.internal.base.ManualTimer;
import dev.padlock.internal.protocol.LockProtocol.Release;
import dev.padlock.internal.protocol.LockProtocol.ReleaseOutcome;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The hand-off budget on a manual clock: 32 hand-offs or 100 ms a chain, and the yield after it. */
class HandOffBudgetTest {
    private final ManualTimer clock = new ManualTimer();
    private final HandOffBudget budget = new HandOffBudget(clock);

    @Test
    void aChainJustStartedAllowsAHandOff() {
        budget.restart();

        assertThat(budget.allowsHandOff()).isTrue();
    }

    @Test
    void theBudgetEndsWithThe32ndHandOffInARow() {
        budget.restart();
        for (int i = 1; i < HandOffBudget.MAX_LOCAL_HAND_OFFS; i++) {
            budget.handedOff();
            assertThat(budget.allowsHandOff()).as("after %d hand-offs", i).isTrue();
        }

        budget.handedOff();

        assertThat(budget.allowsHandOff()).isFalse();
    }

    @Test
    void theBudgetEndsWhenTheChainHasRunFor100Milliseconds() {
        budget.restart();

        clock.advance(99);
        assertThat(budget.allowsHandOff()).isTrue();
        clock.advance(1);
        assertThat(budget.allowsHandOff()).isFalse();
    }

    @ParameterizedTest(name = "spent by {0}")
    @ValueSource(strings = {"count", "time"})
    void anOwnerTakingTheLockFromRedisStartsAFreshChain(String spentBy) {
        budget.restart();
        if (spentBy.equals("count")) {
            for (int i = 0; i < HandOffBudget.MAX_LOCAL_HAND_OFFS; i++) {
                budget.handedOff();
            }
        } else {
            clock.advance(TimeUnit.NANOSECONDS.toMillis(HandOffBudget.MAX_LOCAL_CHAIN_NANOS));
        }
        assertThat(budget.allowsHandOff()).isFalse();

        budget.restart();

        assertThat(budget.allowsHandOff()).isTrue();
    }

    @Test
    void aHandOffDoesNotRestartTheChainsClock() {
        budget.restart();
        clock.advance(60);
        budget.handedOff();

        clock.advance(40);

        assertThat(budget.allowsHandOff()).as("100 ms since the chain began, not since the hand-off").isFalse();
    }

    @Test
    void noYieldWhenTheReleaseGrantedTheLockToTheNextClientInLine() {
        Release granted = new Release(ReleaseOutcome.RELEASED, 0, true);

        assertThat(HandOffBudget.yieldNanos(granted, false, TimeUnit.MILLISECONDS.toNanos(1))).isZero();
    }

    @ParameterizedTest(name = "{0} listeners, this client listening: {1}")
    @CsvSource({"0, false", "1, true", "0, true"})
    void noYieldWhenNoOtherClientHeardTheUnlock(long listeners, boolean selfListening) {
        Release release = new Release(ReleaseOutcome.RELEASED, listeners);

        assertThat(HandOffBudget.yieldNanos(release, selfListening, TimeUnit.MILLISECONDS.toNanos(1))).isZero();
    }

    @ParameterizedTest(name = "round trip {0} us: yield {1} us")
    @CsvSource({"0, 200", "50, 200", "100, 200", "300, 600", "1000, 2000", "2500, 5000", "10000, 5000"})
    void theYieldIsTwoRoundTripsWithin200MicrosecondsAnd5Milliseconds(long roundTripMicros, long yieldMicros) {
        Release heardByAnother = new Release(ReleaseOutcome.RELEASED, 2);

        long yield = HandOffBudget.yieldNanos(heardByAnother, true, TimeUnit.MICROSECONDS.toNanos(roundTripMicros));

        assertThat(yield).isEqualTo(TimeUnit.MICROSECONDS.toNanos(yieldMicros));
    }

    @Test
    void aListenerCountedWhileThisClientIsNotSubscribedIsAnotherClient() {
        Release release = new Release(ReleaseOutcome.RELEASED, 1);

        assertThat(HandOffBudget.yieldNanos(release, false, 0)).isEqualTo(HandOffBudget.MIN_YIELD_NANOS);
    }
}
