package dev.padlock;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The asynchronous methods of an {@link RLock}, as Redisson's {@code RLockAsync}: each takes an
 * explicit owner id, since its callbacks run on other threads, and none blocks. The arguments are
 * checked at the call, as {@link RLock}'s are; every future completes within its wait plus twice
 * the command timeout, or fails with {@link RedisUnavailableException} naming the address and the
 * operation.
 */
public interface RLockAsync {

    /**
     * Acquires the lock for owner {@code threadId}, waiting as long as it takes. Cancelling the
     * future stops the wait and undoes an acquisition that lands after the cancel.
     *
     * @param leaseTime the lease; {@code <= 0} means a watchdog lease
     * @param unit the unit of {@code leaseTime}
     * @param threadId the owner id, which {@link #unlockAsync(long)} gives back
     * @return a future that completes once the lock is held
     */
    CompletableFuture<Void> lockAsync(long leaseTime, TimeUnit unit, long threadId);

    /**
     * Tries to acquire the lock for owner {@code threadId} within {@code waitTime}. The future
     * completes within the wait plus twice the command timeout.
     *
     * @param waitTime how long to wait at most; {@code 0} means one attempt
     * @param leaseTime the lease; {@code <= 0} means a watchdog lease
     * @param unit the unit of {@code waitTime} and {@code leaseTime}
     * @param threadId the owner id, which {@link #unlockAsync(long)} gives back
     * @return a future of whether it was acquired
     */
    CompletableFuture<Boolean> tryLockAsync(long waitTime, long leaseTime, TimeUnit unit, long threadId);

    /**
     * Drops one hold of owner {@code threadId}. The future completes exceptionally with
     * {@link IllegalMonitorStateException} when that owner does not hold the lock.
     *
     * @param threadId the owner id the lock was acquired for
     * @return a future that completes once Redis confirmed the release
     */
    CompletableFuture<Void> unlockAsync(long threadId);

    /**
     * Deletes the lock whoever holds it.
     *
     * @return a future of whether it was held
     */
    CompletableFuture<Boolean> forceUnlockAsync();

    /**
     * As {@link RLock#isLocked()}, without blocking.
     *
     * @return a future of whether the lock is held
     */
    CompletableFuture<Boolean> isLockedAsync();

    /**
     * As {@link RLock#getHoldCount()}, for owner {@code threadId}, without blocking.
     *
     * @param threadId the owner id
     * @return a future of the owner's hold count, 0 when it does not hold the lock
     */
    CompletableFuture<Integer> getHoldCountAsync(long threadId);

    /**
     * As {@link RLock#remainTimeToLive()}, without blocking.
     *
     * @return a future of the lock's TTL in milliseconds, {@code -2} when not held, {@code -1}
     *     when held without expiry
     */
    CompletableFuture<Long> remainTimeToLiveAsync();
}
