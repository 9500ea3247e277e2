package dev.padlock;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * An {@link RLock} whose every acquisition also returns a fencing token: a number that strictly
 * increases from one holder of the name to the next, across all clients, and survives the lock's
 * expiry and deletion. Pass it to the resource the lock guards, and let the resource reject a
 * writer whose token is older than one it has seen: a holder paused past its lease can then do no
 * harm. A reentrant acquisition keeps the token it has.
 *
 * <p>The counter is the key {@code redisson_lock_token:{<name>}}, which never expires. A new
 * holder first raises it to at least the Redis server's clock in microseconds since the epoch
 * ({@code TIME}), then increments it: a token is a positive {@code long} of about 1.8 &times;
 * 10<sup>15</sup>, and it stays above every earlier token of the name even when Redis lost the
 * counter (a restart without persistence, a failover to a replica that lacked the last
 * increments). That assumes the Redis servers' clocks do not go backwards (NTP-synced hosts): a
 * server whose clock was set back by more than the tokens handed out since could, once the
 * counter is lost, hand out a token at or below one already seen. Redisson's {@code RFencedLock},
 * which increments the same key, interoperates.
 */
public interface RFencedLock extends RLock {

    /**
     * As {@link #lock()}, returning the token of this acquisition.
     *
     * @return the token
     */
    long lockAndGetToken();

    /**
     * As {@link #lock(long, TimeUnit)}, returning the token of this acquisition.
     *
     * @param leaseTime the lease; {@code <= 0} means a watchdog lease
     * @param unit the unit of {@code leaseTime}
     * @return the token
     */
    long lockAndGetToken(long leaseTime, TimeUnit unit);

    /**
     * As {@link #tryLock(long, long, TimeUnit)}, returning the token of this acquisition.
     *
     * @param waitTime how long to wait at most; {@code 0} means one attempt
     * @param leaseTime the lease; {@code <= 0} means a watchdog lease
     * @param unit the unit of {@code waitTime} and {@code leaseTime}
     * @return the token, or {@code null} when the lock was not acquired
     * @throws InterruptedException when interrupted before or while waiting; the flag is cleared
     *     and nothing is left behind on Redis
     */
    @Nullable Long tryLockAndGetToken(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException;

    /**
     * The current holder's token. One Redis call.
     *
     * @return the token, or {@code null} when the lock is free
     */
    @Nullable Long getToken();

    /**
     * As {@link #lockAndGetToken()} for owner {@code threadId}, with a lease as in {@link #lockAsync}.
     *
     * @param leaseTime the lease; {@code <= 0} means a watchdog lease
     * @param unit the unit of {@code leaseTime}
     * @param threadId the owner id
     * @return a future of the token
     */
    CompletableFuture<Long> lockAndGetTokenAsync(long leaseTime, TimeUnit unit, long threadId);

    /**
     * As {@link #tryLockAndGetToken} for owner {@code threadId}.
     *
     * @param waitTime how long to wait at most; {@code 0} means one attempt
     * @param leaseTime the lease; {@code <= 0} means a watchdog lease
     * @param unit the unit of {@code waitTime} and {@code leaseTime}
     * @param threadId the owner id
     * @return a future of the token, or of {@code null} when not acquired
     */
    CompletableFuture<Long> tryLockAndGetTokenAsync(long waitTime, long leaseTime, TimeUnit unit, long threadId);

    /**
     * As {@link #getToken()}, without blocking.
     *
     * @return a future of the token, or of {@code null} when the lock is free
     */
    CompletableFuture<Long> getTokenAsync();
}
