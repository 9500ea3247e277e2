package dev.padlock.internal.lease;

import dev.padlock.LockLease;
import dev.padlock.PadlockException;
import dev.padlock.RFencedLock;
import dev.padlock.RLock;
import dev.padlock.RedisUnavailableException;
import dev.padlock.internal.base.CallBound;
import dev.padlock.internal.base.WaitBudget;
import dev.padlock.internal.redis.RedisErrors;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Acquires {@link LockLease}s of any {@link RLock}, through its owner-id methods, and waits for
 * them as its blocking lease methods do; {@link Leases} calls it.
 */
final class LeaseAcquisition {
    /** The wait of {@link RLock#acquire()}: without bound. */
    static final long FOREVER = -1;

    private LeaseAcquisition() {
    }

    /**
     * Acquires a lease of {@code lock}: waits {@code waitMillis} at most ({@link #FOREVER}: without
     * bound), with a lease of {@code leaseMillis} ({@link LeaseMillis#WATCHDOG}: the watchdog's).
     * Cancelling the future stops the wait, and releases a lease that lands after the cancel.
     */
    static CompletableFuture<Optional<LockLease>> acquire(RLock lock, long waitMillis, long leaseMillis) {
        long owner = LeaseClocks.newOwner();
        // the lock's clients report to the lease's clock, which runs on their clock
        List<LeaseClocks> registries = lock instanceof ReportsToLeases reporting ? reporting.leaseClocks() : List.of();
        // a lock of no client (none reports on it) gives its lease nothing certain, and no clock to read
        LeaseClock clock = lock instanceof ReportsToLeases reporting
                ? LeaseClocks.start(reporting.engineClock(), leaseMillis) : LeaseClocks.unreported();
        registries.forEach(registry -> registry.open(owner, clock));
        Runnable close = () -> {
            registries.forEach(registry -> registry.close(owner));
            clock.released();
        };
        boolean fenced = lock instanceof RFencedLock;
        // the acquisition's own future, not a stage made from it: only its cancel stops the wait
        CompletableFuture<?> acquisition;
        try {
            acquisition = start(lock, waitMillis, leaseMillis, owner);
        } catch (RuntimeException e) {
            close.run();
            throw e;
        }
        CompletableFuture<Optional<LockLease>> result = new CompletableFuture<>();
        acquisition.whenComplete((answer, failure) -> {
            // lockAsync answers null, tryLockAsync whether held, a fenced lock the token (null: not held)
            boolean held = failure == null && (answer instanceof Boolean acquired ? acquired : answer != null || !fenced);
            if (!held) {
                close.run();
                if (failure != null) {
                    result.completeExceptionally(RedisErrors.unwrap(failure));
                } else {
                    result.complete(Optional.empty());
                }
                return;
            }
            LockLease lease = new HandleLease(lock, owner, leaseMillis, fenced ? (Long) answer : null, clock, close);
            if (!result.complete(Optional.of(lease))) {
                lease.releaseAsync(); // the caller cancelled while the lease was on its way
            }
        });
        result.whenComplete((lease, failure) -> {
            if (result.isCancelled()) {
                acquisition.cancel(false);
            }
        });
        return result;
    }

    /**
     * Starts {@code owner}'s acquisition of {@code lock}: a future of {@code null} (held), whether
     * held, or the fencing token ({@code null}: not held), by kind and wait.
     */
    private static CompletableFuture<?> start(RLock lock, long waitMillis, long leaseMillis, long owner) {
        if (lock instanceof RFencedLock fenced) {
            return waitMillis == FOREVER
                    ? fenced.lockAndGetTokenAsync(leaseMillis, TimeUnit.MILLISECONDS, owner)
                    : fenced.tryLockAndGetTokenAsync(waitMillis, leaseMillis, TimeUnit.MILLISECONDS, owner);
        }
        return waitMillis == FOREVER
                ? lock.lockAsync(leaseMillis, TimeUnit.MILLISECONDS, owner)
                : lock.tryLockAsync(waitMillis, leaseMillis, TimeUnit.MILLISECONDS, owner);
    }

    /**
     * As {@link #acquire} waiting without bound, for a future of the lease itself. A lease that
     * lands as the caller cancels is released.
     */
    static CompletableFuture<LockLease> acquireUnbounded(RLock lock, long leaseMillis) {
        CompletableFuture<Optional<LockLease>> acquisition = acquire(lock, FOREVER, leaseMillis);
        CompletableFuture<LockLease> result = new CompletableFuture<>();
        acquisition.whenComplete((acquired, failure) -> {
            if (failure != null) {
                result.completeExceptionally(failure);
            } else if (!result.complete(acquired.orElseThrow())) {
                acquired.get().releaseAsync(); // the caller cancelled as the lease landed
            }
        });
        result.whenComplete((lease, failure) -> {
            if (result.isCancelled()) {
                acquisition.cancel(false);
            }
        });
        return result;
    }

    /** Waits for an unbounded acquisition; an interrupt is kept and re-asserted on return. */
    static LockLease awaitUninterruptibly(CompletableFuture<LockLease> acquisition, String operation) {
        return join(acquisition, operation);
    }

    /**
     * Waits for a bounded acquisition of {@code lock}: for a {@link CallBound} lock, until its wait
     * of {@code waitMillis} plus three quarters of its grace, as a {@code tryLock} waits (then it is
     * cancelled, and fails unless it held meanwhile). An interrupt cancels it (a lease that lands
     * after is released) and is thrown.
     *
     * @throws RedisUnavailableException when it did not end in time, naming the address
     */
    static Optional<LockLease> await(RLock lock, long waitMillis,
            CompletableFuture<Optional<LockLease>> acquisition, String operation) throws InterruptedException {
        long waitNanos = TimeUnit.MILLISECONDS.toNanos(waitMillis);
        boolean bounded = lock instanceof CallBound bound && bound.graceNanos() < WaitBudget.FOREVER / 4
                && waitNanos < WaitBudget.FOREVER / 4;
        try {
            if (!bounded) {
                return acquisition.get();
            }
            CallBound bound = (CallBound) lock;
            return acquisition.get(waitNanos + bound.graceNanos() - bound.graceNanos() / 4, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            acquisition.cancel(false);
            throw e;
        } catch (ExecutionException e) {
            throw forCaller(RedisErrors.causeOf(e), operation);
        } catch (TimeoutException e) {
            if (!acquisition.cancel(false)) {
                return join(acquisition, operation); // it ended as it timed out: held, or failed
            }
            throw new RedisUnavailableException(operation + " at " + ((CallBound) lock).address()
                    + " did not finish within its wait plus twice the command timeout", e);
        }
    }

    /**
     * The answer of {@code call}, failures as the caller's exceptions; an interrupt is kept and
     * re-asserted on return.
     */
    static <T> T join(CompletableFuture<T> call, String operation) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return call.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw forCaller(RedisErrors.causeOf(e), operation);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static RuntimeException forCaller(Throwable failure, String operation) {
        RuntimeException mapped = RedisErrors.forCaller(failure, operation);
        if (mapped != null) {
            return mapped;
        }
        Throwable cause = RedisErrors.unwrap(failure);
        return cause instanceof RuntimeException runtime ? runtime : new PadlockException(operation + " failed", cause);
    }
}
