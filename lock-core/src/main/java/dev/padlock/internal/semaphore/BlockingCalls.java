package dev.padlock.internal.semaphore;

import dev.padlock.RedisUnavailableException;
import dev.padlock.internal.base.WaitBudget;
import dev.padlock.internal.lock.LockServices;
import dev.padlock.internal.redis.RedisErrors;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * How a semaphore's blocking methods wait on its asynchronous calls: a wait for permits at most
 * its wait plus twice the command timeout (then it is cancelled), interruptibly; one call's answer
 * at most twice the command timeout, keeping an interrupt for the caller. Failures are thrown as
 * the caller's exceptions, naming the semaphore, the operation and the address.
 */
final class BlockingCalls {
    private final String what;
    private final LockServices services;

    /** @param what the semaphore, for messages: {@code semaphore '<name>'} */
    BlockingCalls(String what, LockServices services) {
        this.what = what;
        this.services = services;
    }

    /**
     * Waits for {@code wait}; an interrupt or the bound cancels it (permits it takes afterwards are
     * given back).
     *
     * @param waitNanos the wait asked for; {@link WaitBudget#FOREVER} for no bound
     */
    <T> T await(CompletableFuture<T> wait, long waitNanos, String operation) throws InterruptedException {
        long graceNanos = TimeUnit.MILLISECONDS.toNanos(2 * services.commandTimeoutMillis());
        try {
            return waitNanos == WaitBudget.FOREVER ? wait.get() : wait.get(waitNanos + graceNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            wait.cancel(false);
            throw e;
        } catch (ExecutionException e) {
            throw rethrow(RedisErrors.causeOf(e), operation);
        } catch (TimeoutException e) {
            wait.cancel(false);
            throw new RedisUnavailableException(operation + " on " + what + " at " + services.address()
                    + " did not finish within its wait plus twice the command timeout", e);
        }
    }

    /**
     * One call's answer, within twice the command timeout; an interrupt is kept for the caller.
     * A call not answered by then is cancelled: for a one-attempt wait, permits its attempt takes
     * afterwards are given back, since the caller is told it failed.
     */
    <T> T answer(CompletableFuture<T> call, String operation) {
        long boundNanos = TimeUnit.MILLISECONDS.toNanos(2 * services.commandTimeoutMillis());
        long deadline = services.clock().nanoTime() + boundNanos;
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return call.get(Math.max(0, deadline - services.clock().nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw rethrow(RedisErrors.causeOf(e), operation);
                } catch (TimeoutException e) {
                    call.cancel(false);
                    throw new RedisUnavailableException(operation + " on " + what + " at " + services.address()
                            + " got no answer within twice the command timeout", e);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    RuntimeException rethrow(Throwable failure, String operation) {
        RuntimeException mapped = RedisErrors.forCaller(failure, operation);
        return mapped != null ? mapped : RedisErrors.translate(failure, operation + " on " + what, services.address());
    }
}
