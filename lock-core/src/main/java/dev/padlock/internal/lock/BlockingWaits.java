package dev.padlock.internal.lock;

import dev.padlock.LockObserver;
import dev.padlock.RedisUnavailableException;
import dev.padlock.internal.acquire.PendingAcquire;
import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.base.WaitBudget;
import dev.padlock.internal.observe.Observing;
import dev.padlock.internal.redis.RedisErrors;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * How the blocking methods of one lock wait on its asynchronous core: for an acquisition,
 * interruptibly or not, and for one call's answer. No wait outlasts the wait asked for plus twice
 * the command timeout; failures are thrown as the caller's exceptions ({@link RedisErrors#forCaller}).
 * An interrupt is never swallowed: an uninterruptible wait re-asserts it on return.
 */
final class BlockingWaits {
    private final String lockName;
    /** The server address, for messages; read when one is written. */
    private final Supplier<String> address;
    private final long commandTimeoutMillis;
    private final EngineClock clock;

    BlockingWaits(String lockName, Supplier<String> address, long commandTimeoutMillis, EngineClock clock) {
        this.lockName = lockName;
        this.address = address;
        this.commandTimeoutMillis = commandTimeoutMillis;
        this.clock = clock;
    }

    /** The waits of the lock {@code lockName} of the client that {@code services} belong to. */
    static BlockingWaits of(String lockName, LockServices services) {
        return new BlockingWaits(lockName, services::address, services.commandTimeoutMillis(), services.clock());
    }

    /** Waits for an acquisition without bound; an interrupt is kept and re-asserted on return. */
    boolean awaitUninterruptibly(PendingAcquire acquisition, String operation) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return acquisition.reported().get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw rethrow(RedisErrors.causeOf(e), operation);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Waits for a one-attempt acquisition ({@code tryLock()}) as {@link #await} waits for one with
     * no wait, but an interrupt is kept and re-asserted on return instead of ending the wait.
     *
     * @throws RedisUnavailableException when it did not end within twice the command timeout (it
     *     is then cancelled)
     */
    boolean awaitOneAttempt(PendingAcquire acquisition, String operation) {
        CompletableFuture<Boolean> result = acquisition.reported();
        long commandTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(commandTimeoutMillis);
        long start = clock.nanoTime();
        long deadline = start + 2 * commandTimeoutNanos;
        long answerBy = deadline - commandTimeoutNanos / 2;
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return result.get(Math.max(0, answerBy - clock.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw rethrow(RedisErrors.causeOf(e), operation);
                } catch (TimeoutException e) {
                    return timedOut(acquisition, deadline, operation, e);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Waits for an interruptible acquisition. On interrupt the acquisition is cancelled and its
     * clean-up awaited (bounded), then {@link InterruptedException} is thrown; when the lock was
     * acquired before the cancel took effect, it is returned as held and the interrupt is kept.
     *
     * @param waitNanos the wait asked for; {@link WaitBudget#FOREVER}, or anything from a quarter of
     *     it, for no bound (as the acquisition itself has it)
     * @throws RedisUnavailableException when it did not end within its wait plus twice the command
     *     timeout (it is then cancelled)
     */
    boolean await(PendingAcquire acquisition, long waitNanos, String operation) throws InterruptedException {
        CompletableFuture<Boolean> result = acquisition.reported();
        long commandTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(commandTimeoutMillis);
        // as WaitBudget has it: a wait this long has no bound, and adding to it could overflow
        boolean forever = waitNanos >= WaitBudget.FOREVER / 4;
        // the whole call, clean-up included, ends by wait + 2 x command timeout: the result has all
        // but half a command timeout of it, the cancel's clean-up the rest
        long deadline = forever ? 0 : clock.nanoTime() + waitNanos + 2 * commandTimeoutNanos;
        try {
            if (forever) {
                return result.get();
            }
            return result.get(waitNanos + 2 * commandTimeoutNanos - commandTimeoutNanos / 2, TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw rethrow(RedisErrors.causeOf(e), operation);
        } catch (TimeoutException e) {
            return timedOut(acquisition, deadline, operation, e);
        } catch (InterruptedException e) {
            mark(acquisition, LockObserver.Outcome.INTERRUPTED);
            long cleanUpDeadline = clock.nanoTime() + commandTimeoutNanos;
            // the earlier of the two, compared by their difference as nanoTime readings must be
            long until = forever || deadline - cleanUpDeadline > 0 ? cleanUpDeadline : deadline;
            if (cancelAndSettle(acquisition, until)) {
                Thread.currentThread().interrupt();
                return true;
            }
            throw e;
        }
    }

    /**
     * The acquisition outlasted its share of the bound: cancelled, its clean-up awaited until
     * {@code deadline}; true when it had succeeded after all.
     *
     * @throws RedisUnavailableException naming the address, the operation and what Redis did not answer
     */
    private boolean timedOut(PendingAcquire acquisition, long deadline, String operation, TimeoutException e) {
        mark(acquisition, LockObserver.Outcome.FAILED);
        if (cancelAndSettle(acquisition, deadline)) {
            return true;
        }
        throw unavailable(acquisition, operation, e);
    }

    /**
     * The failure of an acquisition that outlasted its bound, naming the address, the operation
     * and what Redis did not answer; caused by that, else by {@code timeout}.
     */
    RedisUnavailableException unavailable(PendingAcquire acquisition, String operation, @Nullable Throwable timeout) {
        Throwable unanswered = acquisition.lastUnanswered();
        return new RedisUnavailableException(operation + " on '" + lockName + "' at " + address.get()
                + " did not finish within its wait plus twice the command timeout"
                + (unanswered == null ? "" : "; Redis did not answer: " + RedisErrors.unwrap(unanswered).getMessage()),
                unanswered == null ? timeout : RedisErrors.unwrap(unanswered));
    }

    /** Says how the observer is to be told of the cancel that follows, when there is one. */
    static void mark(PendingAcquire acquisition, LockObserver.Outcome outcome) {
        if (acquisition instanceof Observing.ObservedAcquire observed) {
            observed.mark(outcome);
        }
    }

    /**
     * Cancels, and waits for the clean-up until {@code deadline} (on the engine's clock); true
     * when the acquisition had already succeeded and the lock is held.
     */
    private boolean cancelAndSettle(PendingAcquire acquisition, long deadline) {
        if (!acquisition.result().cancel(false) && acquisition.result().getNow(false)) {
            return true;
        }
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    acquisition.settled().get(Math.max(0, deadline - clock.nanoTime()), TimeUnit.NANOSECONDS);
                    return false;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException | TimeoutException e) {
                    return false;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Waits for one call's answer, at most twice the command timeout; an interrupt is kept and
     * re-asserted on return.
     *
     * @throws RedisUnavailableException when no answer came in time
     */
    <T> T join(CompletableFuture<T> future, String operation) {
        return join(future, operation, (failure, owner) -> failure, 0);
    }

    /** What a call's failure becomes before it is thrown, for the owner that made the call. */
    @FunctionalInterface
    interface OwnersFailure {
        Throwable of(Throwable failure, long owner);
    }

    /**
     * {@link #join(CompletableFuture, String)}, with the call's failure first mapped by
     * {@code failed} for {@code owner}.
     */
    <T> T join(CompletableFuture<T> future, String operation, OwnersFailure failed, long owner) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return future.get(2 * commandTimeoutMillis, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw rethrow(RedisErrors.unwrap(failed.of(RedisErrors.causeOf(e), owner)), operation);
                } catch (TimeoutException e) {
                    throw new RedisUnavailableException(operation + " on '" + lockName + "' at " + address.get()
                            + " got no answer within twice the command timeout", e);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A failure to throw on the caller's thread: see {@link RedisErrors#forCaller}. */
    private RuntimeException rethrow(Throwable failure, String operation) {
        RuntimeException mapped = RedisErrors.forCaller(failure, operation);
        return mapped != null ? mapped
                : RedisErrors.translate(failure, operation + " on '" + lockName + "'", address.get());
    }
}
