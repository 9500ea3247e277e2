package dev.padlock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A counting semaphore on Redis, in Redisson's {@code RSemaphore} format: the key {@code <name>}
 * holds the number of free permits, and every release publishes that number on
 * {@code redisson_sc:{<name>}}. A Redisson {@code RSemaphore} of the same name shares the permits,
 * and each side's release wakes the other's waiters.
 *
 * <p>Permits belong to nobody: any caller may release them, and a holder that dies keeps its
 * permits out of use until someone adds them back ({@link #addPermits}).
 *
 * <p>Waiting wakes on a release through pub/sub: a release that leaves {@code n} permits free
 * wakes at most {@code n} waiters of each client, and each waiter also looks again at least every
 * two command timeouts, in case a message was lost. Permits are taken only by a waiter's own
 * call to Redis; one taken after its wait ended (a cancelled future, an interrupt) is given back.
 * Every call fails with {@link IllegalArgumentException} on a count of zero or less (a negative
 * {@link #addPermits} aside) or a negative wait, before anything reaches Redis, and ends by its
 * wait plus twice the command timeout.
 */
public interface RSemaphore {

    /**
     * The semaphore's name.
     *
     * @return its name: its Redis key
     */
    String getName();

    /**
     * Sets the number of permits when none is set (the key is absent), and wakes the waiters.
     *
     * @param permits the number of permits, at least 1
     * @return whether it was set
     */
    boolean trySetPermits(int permits);

    /**
     * Adds permits, or removes them, and wakes the waiters that may go. A count never set starts
     * from 0; removing permits in use takes the count below 0 until they come back.
     *
     * @param permits how many to add; negative to remove; not 0
     */
    void addPermits(int permits);

    /**
     * The number of free permits now.
     *
     * @return free permits: 0 when none was ever set, below 0 when more were removed than free
     */
    int availablePermits();

    /**
     * Takes every free permit.
     *
     * @return how many were taken
     */
    int drainPermits();

    /**
     * Takes one permit, waiting without bound.
     *
     * @throws InterruptedException when interrupted while waiting (no permit is kept)
     */
    default void acquire() throws InterruptedException {
        acquire(1);
    }

    /**
     * Takes {@code permits} at once, waiting without bound until that many are free.
     *
     * @param permits how many, at least 1
     * @throws InterruptedException when interrupted while waiting (no permit is kept)
     */
    void acquire(int permits) throws InterruptedException;

    /**
     * Takes one permit if one is free now.
     *
     * @return whether it was taken
     */
    default boolean tryAcquire() {
        return tryAcquire(1);
    }

    /**
     * Takes {@code permits} at once if that many are free now.
     *
     * @param permits how many, at least 1
     * @return whether they were taken
     */
    boolean tryAcquire(int permits);

    /**
     * Takes one permit, waiting up to {@code wait}.
     *
     * @param wait how long to wait, not negative
     * @return whether it was taken
     * @throws InterruptedException when interrupted while waiting (no permit is kept)
     */
    default boolean tryAcquire(Duration wait) throws InterruptedException {
        return tryAcquire(1, wait);
    }

    /**
     * Takes {@code permits} at once, waiting up to {@code wait} for that many to be free.
     *
     * @param permits how many, at least 1
     * @param wait how long to wait, not negative
     * @return whether they were taken
     * @throws InterruptedException when interrupted while waiting (no permit is kept)
     */
    boolean tryAcquire(int permits, Duration wait) throws InterruptedException;

    /** Gives back one permit and wakes a waiter. */
    default void release() {
        release(1);
    }

    /**
     * Gives back {@code permits} and wakes as many waiters as may go. Any caller may release:
     * permits belong to nobody.
     *
     * @param permits how many, at least 1
     */
    void release(int permits);

    /**
     * {@link #acquire(int)} without blocking. Cancelling the future ends the wait (permits taken
     * meanwhile are given back).
     *
     * @param permits how many, at least 1
     * @return completes once they are taken
     */
    CompletableFuture<Void> acquireAsync(int permits);

    /**
     * {@link #tryAcquire(int, Duration)} without blocking. Cancelling the future ends the wait
     * (permits taken meanwhile are given back).
     *
     * @param permits how many, at least 1
     * @param wait how long to wait, not negative
     * @return completes with whether they were taken
     */
    CompletableFuture<Boolean> tryAcquireAsync(int permits, Duration wait);

    /**
     * {@link #release(int)} without blocking.
     *
     * @param permits how many, at least 1
     * @return completes once they are back
     */
    CompletableFuture<Void> releaseAsync(int permits);
}
