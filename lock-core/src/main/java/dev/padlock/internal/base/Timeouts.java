package dev.padlock.internal.base;

import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/** Futures that complete on the client's timer, so a manual timer in a test drives them too. */
public final class Timeouts {
    private Timeouts() {
    }

    /**
     * Completes {@code future} with {@code value} after {@code delay} unless it completes first (the
     * timeout is then cancelled). A stopped timer (a closed client) completes it at once.
     *
     * @return {@code future}
     */
    public static <T> CompletableFuture<T> completeAfter(Timer timer, CompletableFuture<T> future, @Nullable T value,
            long delay, TimeUnit unit) {
        if (future.isDone()) {
            return future;
        }
        Timeout timeout;
        try {
            timeout = timer.newTimeout(t -> future.complete(value), delay, unit);
        } catch (IllegalStateException | java.util.concurrent.RejectedExecutionException stopped) {
            future.complete(value);
            return future;
        }
        future.whenComplete((v, failure) -> timeout.cancel());
        return future;
    }

    /** A future that completes with {@code null} after {@code delay}. */
    public static CompletableFuture<Void> after(Timer timer, long delay, TimeUnit unit) {
        return completeAfter(timer, new CompletableFuture<>(), null, delay, unit);
    }
}
