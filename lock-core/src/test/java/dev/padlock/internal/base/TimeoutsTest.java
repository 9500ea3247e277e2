package dev.padlock.internal.base;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Futures completed on the client's timer, here a manual one. */
class TimeoutsTest {
    private final ManualTimer timer = new ManualTimer();

    @Test
    void aFutureCompletesWithTheValueWhenItsTimeComes() {
        CompletableFuture<Boolean> gate = Timeouts.completeAfter(timer, new CompletableFuture<>(), false, 50,
                TimeUnit.MILLISECONDS);

        timer.advance(49);
        assertThat(gate).isNotDone();
        timer.advance(1);
        assertThat(gate).isCompletedWithValue(false);
    }

    @Test
    void aFutureCompletedFirstKeepsItsValueAndCancelsItsTimeout() {
        CompletableFuture<Boolean> gate = Timeouts.completeAfter(timer, new CompletableFuture<>(), false, 50,
                TimeUnit.MILLISECONDS);

        gate.complete(true);

        assertThat(timer.pending()).as("the timeout is cancelled, the wheel stays small").isZero();
        timer.advance(100);
        assertThat(gate).isCompletedWithValue(true);
    }

    @Test
    void aFutureAlreadyDoneSchedulesNothing() {
        CompletableFuture<String> done = CompletableFuture.completedFuture("here");

        assertThat(Timeouts.completeAfter(timer, done, "late", 10, TimeUnit.MILLISECONDS)).isSameAs(done);
        assertThat(timer.pending()).isZero();
    }

    @Test
    void aStoppedTimerCompletesTheFutureAtOnceSoAClosedClientsWaitsEnd() {
        timer.stop();

        CompletableFuture<Boolean> gate = Timeouts.completeAfter(timer, new CompletableFuture<>(), false, 60_000,
                TimeUnit.MILLISECONDS);

        assertThat(gate).isCompletedWithValue(false);
    }

    @Test
    void afterCompletesWithNullOnTheTimer() {
        CompletableFuture<Void> later = Timeouts.after(timer, 2, TimeUnit.SECONDS);

        timer.advance(1_999);
        assertThat(later).isNotDone();
        timer.advance(1);
        assertThat(later).isCompleted();
    }

    @Test
    void aCancelledFutureCancelsItsTimeout() {
        CompletableFuture<Boolean> gate = Timeouts.completeAfter(timer, new CompletableFuture<>(), false, 50,
                TimeUnit.MILLISECONDS);

        gate.cancel(false);

        assertThat(timer.pending()).isZero();
    }

    @Test
    void theManualClockMovesWithTheTimer() {
        long start = timer.nanoTime();
        long wall = timer.currentTimeMillis();

        timer.advance(1_500);

        assertThat(timer.millisSince(start)).isEqualTo(1_500);
        assertThat(timer.currentTimeMillis() - wall).isEqualTo(1_500);
    }
}
