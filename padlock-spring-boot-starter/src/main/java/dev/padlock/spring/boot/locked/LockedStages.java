package dev.padlock.spring.boot.locked;

import dev.padlock.LockLease;
import dev.padlock.RLock;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code CompletionStage} route: the call returns a future at once; the method is invoked
 * once the lease is held, on the thread that acquired it, and the lease is released when the
 * method's stage completes (the future then completes as the stage did), or when the future is
 * cancelled (which also stops a wait, or cancels the method's stage when that is a {@link Future}).
 */
final class LockedStages {
    private static final Logger LOG = LoggerFactory.getLogger(LockedStages.class);

    private LockedStages() {
    }

    static CompletableFuture<Object> run(MethodInvocation invocation, LockedMethod locked, RLock lock) {
        CompletableFuture<Object> result = new CompletableFuture<>();
        CompletableFuture<?> acquisition = locked.acquireAsync(lock);
        result.whenComplete((value, failure) -> {
            if (result.isCancelled()) {
                acquisition.cancel(false);
            }
        });
        acquisition.whenComplete((acquired, failure) -> {
            if (failure != null) {
                result.completeExceptionally(unwrap(failure));
                return;
            }
            LockLease lease = LockedMethod.leaseIn(acquired);
            if (lease == null) {
                result.completeExceptionally(locked.notAcquired(lock.getName()));
            } else if (result.isDone()) {
                unawaited(release(lease), lease); // cancelled while the lease was on its way
            } else {
                runUnder(lease, invocation, result);
            }
        });
        return result;
    }

    private static void runUnder(LockLease lease, MethodInvocation invocation, CompletableFuture<Object> result) {
        CompletionStage<?> stage;
        try {
            stage = (CompletionStage<?>) invocation.proceed();
        } catch (Throwable failure) {
            release(lease).whenComplete((ignored, releaseFailure) -> fail(result, failure, releaseFailure));
            return;
        }
        if (stage == null) {
            release(lease).whenComplete((ignored, releaseFailure) -> complete(result, null, null, releaseFailure));
            return;
        }
        AtomicBoolean released = new AtomicBoolean(); // the cancel and the stage's end race to release
        Supplier<CompletableFuture<Void>> releaseOnce = () -> released.compareAndSet(false, true)
                ? release(lease) : CompletableFuture.completedFuture(null);
        result.whenComplete((value, failure) -> {
            if (result.isCancelled()) {
                unawaited(releaseOnce.get(), lease);
                if (stage instanceof Future<?> future) {
                    future.cancel(true);
                }
            }
        });
        stage.whenComplete((value, failure) -> releaseOnce.get().whenComplete((ignored, releaseFailure) ->
                complete(result, value, failure == null ? null : unwrap(failure), releaseFailure)));
    }

    private static void complete(CompletableFuture<Object> result, Object value, Throwable failure,
            Throwable releaseFailure) {
        if (failure != null) {
            fail(result, failure, releaseFailure);
        } else if (releaseFailure != null) {
            result.completeExceptionally(unwrap(releaseFailure));
        } else {
            result.complete(value);
        }
    }

    private static void fail(CompletableFuture<Object> result, Throwable failure, Throwable releaseFailure) {
        if (releaseFailure != null) {
            failure.addSuppressed(unwrap(releaseFailure));
        }
        result.completeExceptionally(failure);
    }

    /**
     * Releases {@code lease} without blocking, as {@link LockLease#close()} would: a lease already
     * lost is logged at WARN, not a failure.
     */
    static CompletableFuture<Void> release(LockLease lease) {
        return lease.releaseAsync().exceptionally(failure -> {
            Throwable cause = unwrap(failure);
            if (cause instanceof IllegalMonitorStateException) {
                LOG.warn("Padlock: @Locked: the lease of '{}' no longer held at its release: {}", lease.lockName(),
                        cause.getMessage());
                return null;
            }
            throw failure instanceof CompletionException completion ? completion : new CompletionException(cause);
        });
    }

    /** A release nobody waits for (the future was cancelled): a failure is logged. */
    private static void unawaited(CompletableFuture<Void> release, LockLease lease) {
        release.whenComplete((ignored, failure) -> {
            if (failure != null) {
                LOG.warn("Padlock: @Locked: releasing '{}' after a cancel failed", lease.lockName(), unwrap(failure));
            }
        });
    }

    static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }
}
