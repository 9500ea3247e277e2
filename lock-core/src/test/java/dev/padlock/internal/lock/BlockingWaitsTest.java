package dev.padlock.internal.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.padlock.LockObserver.Kind;
import dev.padlock.LockObserver.Outcome;
import dev.padlock.RedisUnavailableException;
import dev.padlock.internal.acquire.LockAcquisition;
import dev.padlock.internal.acquire.PendingAcquire;
import dev.padlock.internal.base.ManualTimer;
import dev.padlock.internal.observe.Observing;
import dev.padlock.internal.observe.RecordingObserver;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How a lock's blocking methods wait: interrupts, clean-up after a cancel, and the errors they
 * throw. A command timeout of zero makes every bounded wait end at once, so nothing here waits.
 */
class BlockingWaitsTest {
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final ManualTimer clock = new ManualTimer();
    private final BlockingWaits waits = new BlockingWaits("orders", () -> "redis://127.0.0.1:6379", 3_000, clock);
    private final BlockingWaits noTime = new BlockingWaits("orders", () -> "redis://127.0.0.1:6379", 0, clock);

    @AfterEach
    void noInterruptLeaks() {
        Thread.interrupted();
    }

    @Test
    void anInterruptedWaitCancelsTheAcquisitionAwaitsItsCleanUpAndThrows() {
        Pending pending = new Pending();
        Thread.currentThread().interrupt();

        assertThatThrownBy(() -> waits.await(pending, WAIT_NANOS, "tryLock")).isInstanceOf(InterruptedException.class);

        assertThat(pending.result).isCancelled();
        assertThat(pending.settled).as("the clean-up was awaited").isDone();
        assertThat(Thread.currentThread().isInterrupted()).as("the exception reports the interrupt").isFalse();
    }

    @Test
    void anInterruptAfterTheLockWasAcquiredReturnsHeldAndKeepsTheInterrupt() throws InterruptedException {
        Pending pending = new Pending();
        pending.result.complete(true); // the caller is not told yet: its observer is being told
        Thread.currentThread().interrupt();

        assertThat(waits.await(pending, WAIT_NANOS, "tryLock")).isTrue();

        assertThat(Thread.currentThread().isInterrupted()).isTrue();
    }

    @Test
    void anInterruptedObservedAcquisitionIsToldInterrupted() {
        RecordingObserver observer = new RecordingObserver();
        Pending pending = new Pending();
        PendingAcquire observed = new Observing(observer, clock).started(pending, "orders", "orders", Kind.LOCK, 1,
                WAIT_NANOS, clock.nanoTime());
        Thread.currentThread().interrupt();

        assertThatThrownBy(() -> waits.await(observed, LockAcquisition.FOREVER, "lockInterruptibly"))
                .isInstanceOf(InterruptedException.class);

        assertThat(observer.onlyEnd().outcome()).isEqualTo(Outcome.INTERRUPTED);
    }

    @Test
    void aFailedAcquisitionIsThrownAsTheCallersExceptionNamingTheOperation() {
        Pending pending = new Pending();
        pending.result.completeExceptionally(new RedisUnavailableException("connection refused", null));

        assertThatThrownBy(() -> waits.await(pending, WAIT_NANOS, "tryLock"))
                .isInstanceOf(RedisUnavailableException.class).hasMessage("tryLock: connection refused");
    }

    @Test
    void anAcquisitionThatOutlastsItsWaitPlusTwiceTheCommandTimeoutIsCancelledAndReportedWithWhatRedisDidNotAnswer() {
        Pending pending = new Pending();
        RedisUnavailableException unanswered = new RedisUnavailableException("Command timed out", null);
        pending.unanswered = unanswered;

        assertThatThrownBy(() -> noTime.await(pending, 0, "tryLock"))
                .isInstanceOf(RedisUnavailableException.class)
                .hasMessage("tryLock on 'orders' at redis://127.0.0.1:6379 did not finish within its wait plus twice"
                        + " the command timeout; Redis did not answer: Command timed out")
                .hasCause(unanswered);
        assertThat(pending.result).isCancelled();
    }

    @Test
    void anAcquisitionThatSucceededAsItRanOutOfTimeIsReturnedHeld() throws InterruptedException {
        Pending pending = new Pending();
        pending.result.complete(true);

        assertThat(noTime.await(pending, 0, "tryLock")).isTrue();
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    /**
     * Regression: a wait so long that adding twice the command timeout to it overflowed (the
     * largest whole number of seconds, say) became a negative timeout, and the call failed at once
     * with RedisUnavailableException while Redis was fine and the lock merely held.
     */
    @Test
    void aWaitTooLongToAddTheCommandTimeoutToIsWaitedWithoutBoundNotReportedUnavailable()
            throws InterruptedException {
        Pending pending = new Pending();
        pending.reported = new CompletableFuture<>() {
            @Override
            public Boolean get() {
                return true; // the grant that came while the caller waited without bound
            }
        };
        long largestWholeSeconds = TimeUnit.SECONDS.toNanos(TimeUnit.NANOSECONDS.toSeconds(Long.MAX_VALUE));

        assertThat(waits.await(pending, largestWholeSeconds, "tryLock")).isTrue();
        assertThat(pending.result).as("not cancelled").isNotDone();
    }

    @Test
    void anUninterruptibleWaitGoesOnThroughAnInterruptAndReassertsIt() {
        Pending pending = new Pending();
        pending.reported = new CompletableFuture<>() {
            @Override
            public Boolean get() throws InterruptedException, ExecutionException {
                try {
                    return super.get();
                } catch (InterruptedException e) {
                    complete(true); // the lock came after the interrupt
                    throw e;
                }
            }
        };
        Thread.currentThread().interrupt();

        assertThat(waits.awaitUninterruptibly(pending, "lock")).isTrue();

        assertThat(Thread.currentThread().isInterrupted()).isTrue();
        assertThat(pending.result).as("not cancelled").isNotDone();
    }

    @Test
    void aCallWithoutAnAnswerWithinTwiceTheCommandTimeoutIsReportedUnavailable() {
        assertThatThrownBy(() -> noTime.join(new CompletableFuture<>(), "isLocked"))
                .isInstanceOf(RedisUnavailableException.class)
                .hasMessage("isLocked on 'orders' at redis://127.0.0.1:6379 got no answer within twice the command timeout");
    }

    @Test
    void aCallRefusedAsNotHeldIsThrownAsIllegalMonitorState() {
        assertThatThrownBy(() -> waits.join(CompletableFuture.failedFuture(new IllegalMonitorStateException("not held")),
                "unlock")).isInstanceOf(IllegalMonitorStateException.class).hasMessage("not held");
    }

    @Test
    void aCallAnsweredWhileInterruptedReturnsTheAnswerAndKeepsTheInterrupt() {
        Thread.currentThread().interrupt();

        assertThat(waits.join(CompletableFuture.completedFuture(42L), "remainTimeToLive")).isEqualTo(42L);

        assertThat(Thread.currentThread().isInterrupted()).isTrue();
    }

    /** An acquisition the test completes; its clean-up ends when its result does. */
    private static final class Pending implements PendingAcquire {
        final CompletableFuture<Boolean> result = new CompletableFuture<>();
        final CompletableFuture<Void> settled = new CompletableFuture<>();
        CompletableFuture<Boolean> reported = new CompletableFuture<>();
        Throwable unanswered;

        Pending() {
            result.whenComplete((held, failure) -> {
                settled.complete(null);
                if (failure != null) {
                    reported.completeExceptionally(failure);
                }
            });
        }

        @Override
        public CompletableFuture<Boolean> result() {
            return result;
        }

        @Override
        public CompletableFuture<Boolean> reported() {
            return reported;
        }

        @Override
        public CompletableFuture<Void> settled() {
            return settled;
        }

        @Override
        public Throwable lastUnanswered() {
            return unanswered;
        }
    }
}
