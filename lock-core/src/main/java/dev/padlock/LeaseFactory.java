package dev.padlock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Hands out the {@link LockLease}s of one lock: what {@link RLock}'s lease methods do, which
 * delegate here. Each lock supplies its own ({@link RLock#leases()}). Every method behaves, and
 * throws, as the {@code RLock} method of the same name, documented there. Instances are
 * thread-safe.
 */
public interface LeaseFactory {

    /**
     * As {@link RLock#acquire(Duration)}.
     *
     * @param leaseTime the lease; {@link Duration#ZERO} means a watchdog lease
     * @return the lease, to be released by any thread
     */
    LockLease acquire(Duration leaseTime);

    /**
     * As {@link RLock#tryAcquire(Duration, Duration)}.
     *
     * @param waitTime how long to wait at most; {@link Duration#ZERO} means one attempt
     * @param leaseTime the lease; {@link Duration#ZERO} means a watchdog lease
     * @return the lease, or empty when the wait ran out
     * @throws InterruptedException when interrupted before or while waiting; nothing is left behind
     */
    Optional<LockLease> tryAcquire(Duration waitTime, Duration leaseTime) throws InterruptedException;

    /**
     * As {@link RLock#acquireAsync(Duration)}.
     *
     * @param leaseTime the lease; {@link Duration#ZERO} means a watchdog lease
     * @return a future of the lease
     */
    CompletableFuture<LockLease> acquireAsync(Duration leaseTime);

    /**
     * As {@link RLock#tryAcquireAsync(Duration, Duration)}.
     *
     * @param waitTime how long to wait at most; {@link Duration#ZERO} means one attempt
     * @param leaseTime the lease; {@link Duration#ZERO} means a watchdog lease
     * @return a future of the lease, or of empty when the wait ran out
     */
    CompletableFuture<Optional<LockLease>> tryAcquireAsync(Duration waitTime, Duration leaseTime);

    /**
     * As {@link RLock#withLock(Duration, Function)}.
     *
     * @param <T> the work's result
     * @param waitTime how long to wait for the lock at most; {@link Duration#ZERO} means one attempt
     * @param work what to run under the lease, given the lease
     * @return what the work returned; empty when the wait ran out (or the work returned null)
     * @throws InterruptedException when interrupted while waiting for the lock
     */
    <T extends @Nullable Object> Optional<T> withLock(Duration waitTime, Function<? super LockLease, ? extends T> work)
            throws InterruptedException;

    /**
     * As {@link RLock#runWithLock(Duration, Consumer)}.
     *
     * @param waitTime how long to wait for the lock at most; {@link Duration#ZERO} means one attempt
     * @param work what to run under the lease, given the lease
     * @return true when the work ran under the lock; false when the wait ran out and it did not run
     * @throws InterruptedException when interrupted while waiting for the lock; the work did not run
     */
    boolean runWithLock(Duration waitTime, Consumer<? super LockLease> work) throws InterruptedException;

    /**
     * As {@link RLock#withLockAsync(Duration, Function)}.
     *
     * @param <T> the stage's result
     * @param waitTime how long to wait for the lock at most; {@link Duration#ZERO} means one attempt
     * @param work what to start under the lease, given the lease; must not block
     * @return a future of the stage's value; empty when the wait ran out (or the value was null)
     */
    <T extends @Nullable Object> CompletableFuture<Optional<T>> withLockAsync(Duration waitTime,
            Function<? super LockLease, ? extends CompletionStage<T>> work);

    /**
     * As {@link RLock#runWithLockAsync(Duration, Function)}.
     *
     * @param <T> the stage's result, ignored
     * @param waitTime how long to wait for the lock at most; {@link Duration#ZERO} means one attempt
     * @param work what to start under the lease, given the lease; must not block
     * @return a future of whether the work ran under the lock
     */
    <T extends @Nullable Object> CompletableFuture<Boolean> runWithLockAsync(Duration waitTime,
            Function<? super LockLease, ? extends CompletionStage<T>> work);

    /**
     * As {@link RLock#withLockAsync(Function)}.
     *
     * @param <T> the stage's result
     * @param work what to start under the lease, given the lease; must not block
     * @return a future of the stage's value
     */
    <T extends @Nullable Object> CompletableFuture<T> withLockAsync(
            Function<? super LockLease, ? extends CompletionStage<T>> work);
}
