package dev.padlock.tests.support;

import dev.padlock.RLock;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The stress tests' mix of what callers do with a lock, one random call a step: a wait that may
 * run out (50 %), a one-shot {@code tryLock()} (15 %), an unbounded wait that must end (15 %), or an
 * asynchronous wait cancelled after a random moment (20 %: a grant may meet a waiter as it gives
 * up); a watchdog or a 2 s lease, half and half. Every call is bounded.
 */
public final class RandomCalls {
    /** How a step ended. */
    public enum Outcome { HELD, NOT_ACQUIRED, CANCELLED }

    private RandomCalls() {
    }

    /**
     * One step on {@code lock} for the calling thread: when it acquires, runs {@code held} and
     * unlocks. An asynchronous wait uses the owner id {@code asyncOwner}, unique to the step.
     *
     * @throws AssertionError when a call fails or an unbounded wait does not end within 30 s
     */
    public static Outcome step(RLock lock, Random random, long asyncOwner, Runnable held) throws InterruptedException {
        int choice = random.nextInt(100);
        long lease = random.nextBoolean() ? -1 : 2_000;
        try {
            boolean acquired;
            if (choice < 50) {
                acquired = lock.tryLock(50 + random.nextInt(350), lease, TimeUnit.MILLISECONDS);
            } else if (choice < 65) {
                acquired = lock.tryLock();
            } else if (choice < 80) {
                // an unbounded wait (as lock(), for this thread) must end
                lock.lockAsync(lease, TimeUnit.MILLISECONDS, Thread.currentThread().getId()).get(30, TimeUnit.SECONDS);
                acquired = true;
            } else {
                CompletableFuture<Boolean> call = lock.tryLockAsync(2_000, lease, TimeUnit.MILLISECONDS, asyncOwner);
                Thread.sleep(random.nextInt(30));
                if (call.cancel(true)) {
                    return Outcome.CANCELLED; // a hold that landed meanwhile is released by the cancel
                }
                if (!call.get(30, TimeUnit.SECONDS)) {
                    return Outcome.NOT_ACQUIRED;
                }
                held.run();
                lock.unlockAsync(asyncOwner).get(30, TimeUnit.SECONDS);
                return Outcome.HELD;
            }
            if (!acquired) {
                return Outcome.NOT_ACQUIRED;
            }
            held.run();
            lock.unlock();
            return Outcome.HELD;
        } catch (ExecutionException | TimeoutException | CancellationException e) {
            throw new AssertionError(e.toString(), e);
        }
    }
}
