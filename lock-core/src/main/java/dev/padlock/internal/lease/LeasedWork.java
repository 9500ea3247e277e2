package dev.padlock.internal.lease;

import dev.padlock.LeaseLostException;
import dev.padlock.LockLease;
import dev.padlock.internal.redis.RedisErrors;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Work run under a lease that stops when the lease is lost: blocking (the worker thread is
 * interrupted) or as a stage (it is cancelled), with a {@link LeaseGuard} watching the lease. The
 * lease is released when the work ends, whichever way.
 */
public final class LeasedWork {

    private LeasedWork() {
    }

    /**
     * Runs {@code work} on the calling thread under the lease {@code acquired} holds, if any, and
     * releases it after; see {@code RLock.withLock}.
     */
    public static <T> Optional<T> withLock(Optional<LockLease> acquired, Function<? super LockLease, ? extends T> work) {
        if (acquired.isEmpty()) {
            return Optional.empty();
        }
        LockLease lease = acquired.get();
        LeaseGuard guard = LeaseGuard.watch(lease, Thread.currentThread()::interrupt);
        T result;
        try {
            result = work.apply(lease);
        } catch (RuntimeException | Error e) {
            throw stopped(guard, lease, e);
        }
        RuntimeException lost = stopped(guard, lease, null);
        if (lost != null) {
            throw lost;
        }
        return Optional.ofNullable(result);
    }

    /**
     * As {@link #withLock}, for work without a result: whether it ran; see {@code RLock.runWithLock}.
     */
    public static boolean runWithLock(Optional<LockLease> acquired, Consumer<? super LockLease> work) {
        return withLock(acquired, lease -> {
            work.accept(lease);
            return Boolean.TRUE;
        }).isPresent();
    }

    /**
     * Ends {@code guard}'s watch and closes {@code lease}: the exception to throw, the lease-lost
     * one first (the interrupt that stopped the work is cleared), then the work's {@code failure};
     * null when neither.
     */
    private static @Nullable RuntimeException stopped(LeaseGuard guard, LockLease lease, @Nullable Throwable failure) {
        LeaseLostException lost = guard.end();
        Throwable thrown = failure;
        if (lost != null) {
            Thread.interrupted(); // the guard's own interrupt, if the work did not take it
            if (failure != null) {
                lost.addSuppressed(failure);
            }
            thrown = lost;
        }
        try {
            lease.close();
        } catch (RuntimeException e) {
            if (thrown == null) {
                return e;
            }
            thrown.addSuppressed(e);
        }
        if (thrown instanceof Error error) {
            throw error;
        }
        return (RuntimeException) thrown;
    }

    /**
     * Runs {@code work} once {@code acquisition} holds a lease, and releases it when the work's
     * stage completes; see {@code RLock.withLockAsync}.
     */
    public static <T> CompletableFuture<Optional<T>> withLockAsync(CompletableFuture<Optional<LockLease>> acquisition,
            Function<? super LockLease, ? extends CompletionStage<T>> work) {
        return underLease(acquisition, work, Optional::ofNullable, Optional.empty());
    }

    /**
     * As {@link #withLockAsync}, for a stage whose value is not needed: whether the work ran; see
     * {@code RLock.runWithLockAsync}.
     */
    public static <T> CompletableFuture<Boolean> runWithLockAsync(CompletableFuture<Optional<LockLease>> acquisition,
            Function<? super LockLease, ? extends CompletionStage<T>> work) {
        return underLease(acquisition, work, value -> Boolean.TRUE, Boolean.FALSE);
    }

    /**
     * Runs {@code work} once {@code acquisition} holds a lease, and releases it when the work's
     * stage completes: {@code ran} of the stage's value, or {@code notRun} when no lease was
     * acquired. The work's own stage is what a lost lease or a cancel cancels.
     */
    private static <T, R> CompletableFuture<R> underLease(CompletableFuture<Optional<LockLease>> acquisition,
            Function<? super LockLease, ? extends CompletionStage<T>> work, Function<? super T, R> ran, R notRun) {
        CompletableFuture<R> result = new CompletableFuture<>();
        AtomicReference<CompletableFuture<T>> running = new AtomicReference<>();
        acquisition.whenComplete((acquired, failure) -> {
            if (failure != null || acquired.isEmpty()) {
                completeWith(result, failure, notRun);
                return;
            }
            LockLease lease = acquired.get();
            CompletableFuture<T> job = start(work, lease);
            running.set(job);
            if (result.isDone()) {
                job.cancel(true);
            }
            LeaseGuard guard = LeaseGuard.watch(lease, () -> job.cancel(true));
            job.whenComplete((value, workFailure) -> {
                LeaseLostException lost = guard.end();
                lease.releaseAsync().whenComplete((released, releaseFailure) -> {
                    Throwable why = lost != null ? lost : workFailure;
                    if (why == null && releaseFailure != null
                            && !(RedisErrors.unwrap(releaseFailure) instanceof IllegalMonitorStateException)) {
                        why = releaseFailure;
                    }
                    completeWith(result, why, ran.apply(value));
                });
            });
        });
        result.whenComplete((value, failure) -> {
            if (result.isCancelled()) {
                acquisition.cancel(false);
                CompletableFuture<T> job = running.get();
                if (job != null) {
                    job.cancel(true);
                }
            }
        });
        return result;
    }

    /** The work's stage; a work that throws gives a failed one. */
    private static <T> CompletableFuture<T> start(Function<? super LockLease, ? extends CompletionStage<T>> work,
            LockLease lease) {
        try {
            return work.apply(lease).toCompletableFuture();
        } catch (RuntimeException | Error e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private static <T> void completeWith(CompletableFuture<T> result, Throwable failure, T value) {
        if (failure != null) {
            result.completeExceptionally(RedisErrors.unwrap(failure));
        } else {
            result.complete(value);
        }
    }
}
