package dev.padlock.internal.lock;

import dev.padlock.LockObserver;
import dev.padlock.RedisUnavailableException;
import dev.padlock.internal.acquire.PendingAcquire;
import dev.padlock.internal.base.Timeouts;
import dev.padlock.internal.base.WaitBudget;
import io.netty.util.Timer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Keeps the answer of an asynchronous acquisition with a bounded wait within the contract's bound,
 * its wait plus twice the command timeout, as {@link BlockingWaits} keeps a blocking one's: when
 * Redis has not answered by then, the acquisition is cancelled (its clean-up goes on: a hold that
 * lands late is given back), and the caller's future fails with a {@link RedisUnavailableException}
 * naming the address and the operation. The cancel comes half a command timeout before the bound,
 * as a blocking call's does, and the answer waits for the clean-up a quarter of one at most, so it
 * comes inside the bound on a busy machine too.
 */
final class AsyncDeadlines {
    private final BlockingWaits waits;
    private final Timer timer;
    private final long commandTimeoutNanos;

    AsyncDeadlines(BlockingWaits waits, Timer timer, long commandTimeoutMillis) {
        this.waits = waits;
        this.timer = timer;
        this.commandTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(commandTimeoutMillis);
    }

    /**
     * The acquisition's {@linkplain PendingAcquire#reported() reported} result, failed at its bound
     * when it has not come by then; the result itself for a wait without bound.
     *
     * @param waitNanos the wait asked for; from a quarter of {@link WaitBudget#FOREVER}, no bound
     */
    CompletableFuture<Boolean> bounded(PendingAcquire acquisition, long waitNanos, String operation) {
        CompletableFuture<Boolean> reported = acquisition.reported();
        if (waitNanos >= WaitBudget.FOREVER / 4 || reported.isDone()) {
            return reported;
        }
        CompletableFuture<Boolean> out = new CompletableFuture<>();
        AtomicBoolean cut = new AtomicBoolean();
        reported.whenComplete((held, failure) -> {
            if (cut.get() && acquisition.result().isCancelled()) {
                return; // cancelled here, at the bound: the answer is the bound's
            }
            if (failure != null) {
                out.completeExceptionally(failure);
            } else {
                out.complete(held);
            }
        });
        long answerBy = Math.max(0, waitNanos) + 2 * commandTimeoutNanos - commandTimeoutNanos / 2;
        CompletableFuture<Void> due = Timeouts.after(timer, answerBy, TimeUnit.NANOSECONDS);
        due.thenRun(() -> {
            if (out.isDone()) {
                return;
            }
            cut.set(true);
            BlockingWaits.mark(acquisition, LockObserver.Outcome.FAILED);
            if (!acquisition.result().cancel(false)) {
                return; // it ended just now: its own answer stands
            }
            CompletableFuture<Void> cleanUp = new CompletableFuture<>();
            acquisition.settled().whenComplete((ignored, failure) -> cleanUp.complete(null));
            Timeouts.completeAfter(timer, cleanUp, null, commandTimeoutNanos / 4, TimeUnit.NANOSECONDS)
                    .thenRun(() -> out.completeExceptionally(waits.unavailable(acquisition, operation, null)));
        });
        out.whenComplete((held, failure) -> due.cancel(false)); // nothing left on the timer
        return out;
    }
}
