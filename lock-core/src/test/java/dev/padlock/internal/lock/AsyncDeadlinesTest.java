package dev.padlock.internal.lock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.RedisUnavailableException;
import dev.padlock.internal.acquire.LockAcquisition;
import dev.padlock.internal.acquire.PendingAcquire;
import dev.padlock.internal.base.ManualTimer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * When an asynchronous acquisition's answer comes, on a manual timer: its own answer within the
 * bound, else a failure naming the address, with the acquisition cancelled half a command timeout
 * before the bound and its clean-up awaited a quarter of one at most.
 */
class AsyncDeadlinesTest {
    private static final long COMMAND_TIMEOUT_MILLIS = 1_000;
    private static final long WAIT_MILLIS = 500;

    private final ManualTimer timer = new ManualTimer();
    private final AsyncDeadlines deadlines = new AsyncDeadlines(
            new BlockingWaits("orders", () -> "127.0.0.1:7000", COMMAND_TIMEOUT_MILLIS, timer), timer,
            COMMAND_TIMEOUT_MILLIS);

    @Test
    void anAcquisitionRedisDoesNotAnswerIsCancelledBeforeTheBoundAndFailsWithinIt() {
        Stalled acquisition = new Stalled();
        CompletableFuture<Boolean> answer = deadlines.bounded(acquisition, ms(WAIT_MILLIS), "tryLock");

        timer.advance(WAIT_MILLIS + 1_500 - 1);
        assertThat(acquisition.result).isNotDone();
        timer.advance(1);
        assertThat(acquisition.result).as("cancelled half a command timeout before the bound").isCancelled();
        assertThat(answer).as("waiting for the clean-up").isNotDone();

        timer.advance(250);
        assertThat(answer).isCompletedExceptionally();
        Throwable failure = answer.handle((held, f) -> f).join();
        assertThat(failure).isInstanceOf(RedisUnavailableException.class)
                .hasMessageContaining("tryLock on 'orders' at 127.0.0.1:7000");
    }

    @Test
    void aCleanUpThatEndsEarlyAnswersAtOnce() {
        Stalled acquisition = new Stalled();
        CompletableFuture<Boolean> answer = deadlines.bounded(acquisition, 0, "tryLock");

        timer.advance(1_500);
        acquisition.settled.complete(null);

        assertThat(answer).isCompletedExceptionally();
        assertThat(timer.pending()).as("nothing left scheduled").isZero();
    }

    @Test
    void anAnswerWithinTheBoundIsTheAcquisitionsOwnAndCancelsTheDeadline() {
        Stalled acquisition = new Stalled();
        CompletableFuture<Boolean> answer = deadlines.bounded(acquisition, ms(WAIT_MILLIS), "tryLock");

        timer.advance(1_000);
        acquisition.result.complete(true);

        assertThat(answer).isCompletedWithValue(true);
        assertThat(timer.pending()).isZero();
    }

    @Test
    void anAcquisitionThatEndedAsItWasCutOffKeepsItsOwnAnswer() {
        Stalled acquisition = new Stalled();
        acquisition.reported = new CompletableFuture<>(); // its observer is still being told
        CompletableFuture<Boolean> answer = deadlines.bounded(acquisition, 0, "tryLock");
        acquisition.result.complete(true);

        timer.advance(1_500);
        assertThat(answer).isNotDone();
        acquisition.reported.complete(true);

        assertThat(answer).isCompletedWithValue(true);
    }

    @Test
    void aWaitWithoutBoundIsNotCutOff() {
        Stalled acquisition = new Stalled();

        assertThat(deadlines.bounded(acquisition, LockAcquisition.FOREVER, "lock")).isSameAs(acquisition.result);
        assertThat(timer.pending()).isZero();
    }

    private static long ms(long millis) {
        return TimeUnit.MILLISECONDS.toNanos(millis);
    }

    /** An acquisition whose clean-up, like its answer, needs a Redis that does not answer. */
    private static final class Stalled implements PendingAcquire {
        final CompletableFuture<Boolean> result = new CompletableFuture<>();
        final CompletableFuture<Void> settled = new CompletableFuture<>();
        CompletableFuture<Boolean> reported;

        @Override
        public CompletableFuture<Boolean> result() {
            return result;
        }

        @Override
        public CompletableFuture<Boolean> reported() {
            return reported != null ? reported : result;
        }

        @Override
        public CompletableFuture<Void> settled() {
            return settled;
        }
    }
}
