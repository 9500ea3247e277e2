package dev.padlock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A reentrant lock held on Redis, shared by every client that uses the same name.
 *
 * <p>Ownership belongs to a client ({@link LockClient#getId()}) and an owner id: the calling
 * thread's id for the blocking methods, an explicit {@code threadId} for the asynchronous ones.
 * Each acquisition carries a lease. A lease given explicitly ({@code leaseTime > 0}) expires by
 * itself and is never renewed; without one, the lease is the client's watchdog timeout and the
 * watchdog renews it every third of that until the last unlock.
 *
 * <p>Zero or a negative lease, two readings: the {@code long leaseTime, TimeUnit unit} methods read
 * any {@code leaseTime <= 0} as "a watchdog lease", as Redisson's {@code RLock} does
 * ({@code lock(-1, SECONDS)}); the {@link Duration} methods take {@link Duration#ZERO} for the
 * watchdog and refuse a negative lease, most often a subtraction gone wrong.
 *
 * <p>Waiting does not poll: a waiter wakes on the lock's unlock message, or at the latest when
 * the holder's lease runs out.
 *
 * <p>{@link #acquire()}, {@link #tryAcquire(Duration)} and their twins hand out a {@link LockLease}
 * instead: a hold owned by a handle, which any thread may release.
 *
 * <p>Arguments are checked before anything reaches Redis: a {@code null} unit gives a
 * {@link NullPointerException}, a negative wait time or a lease above {@link #MAX_LEASE} an
 * {@link IllegalArgumentException}. A
 * Redis that cannot be reached gives a {@link RedisUnavailableException} naming the address and
 * the operation; no call blocks longer than the wait it asked for plus twice the command timeout.
 * An acquisition after {@link LockClient#close()} gives an {@link IllegalStateException}. No
 * method declares a checked exception other than {@link InterruptedException}, which clears the
 * thread's interrupt flag. Instances are thread-safe.
 */
public interface RLock extends Lock, RLockAsync {

    /**
     * The longest lease any method accepts: {@code Integer.MAX_VALUE} milliseconds (about 24.8
     * days), the cap of every timeout ({@link LockConfig#MAX_TIMEOUT}); a longer one, most often a
     * unit mistaken, gives an {@link IllegalArgumentException} at the call. A job that must hold
     * longer holds with the watchdog's lease, renewed while its client lives.
     */
    Duration MAX_LEASE = Duration.ofMillis(Integer.MAX_VALUE);

    /**
     * The name given to {@link LockClient#getLock(String)}; also the lock's Redis key.
     *
     * @return the lock's name
     */
    String getName();

    /**
     * Acquires the lock for the calling thread, waiting as long as it takes, with a watchdog
     * lease: the client's {@link LockConfig#watchdogTimeout() watchdog timeout}, renewed every
     * third of it until the last unlock. A lock whose client dies is free again within one
     * watchdog timeout.
     *
     * <p>Not interruptible: an interrupt during the wait is kept and re-asserted on return
     * ({@link #lockInterruptibly()} throws instead). The wait has no bound while Redis answers:
     * when its calls go unanswered for twice the command timeout in a row, it ends with a
     * {@link RedisUnavailableException}.
     *
     * @throws RedisUnavailableException when Redis cannot be reached; the message names the
     *     address and the operation
     */
    @Override
    void lock();

    /**
     * Acquires the lock, waiting as long as it takes, with a fixed lease. Not interruptible, and
     * bounded by Redis's answers, as {@link #lock()}.
     *
     * @param leaseTime how long the lock is held unless unlocked first, never renewed;
     *     {@code <= 0} (zero or negative, as in Redisson) means a watchdog lease instead, where
     *     {@link #acquire(Duration)} refuses a negative lease; at most {@link #MAX_LEASE}
     * @param unit the unit of {@code leaseTime}
     * @throws RedisUnavailableException as {@link #lock()}
     */
    void lock(long leaseTime, TimeUnit unit);

    /**
     * As {@link #lock()} (waits as long as it takes, watchdog lease), but an interrupt ends the
     * wait. When the lock is granted as the interrupt comes, the call returns holding it, with
     * the interrupt flag set.
     *
     * @throws InterruptedException when the thread was interrupted before the call (at once, as
     *     {@link java.util.concurrent.locks.ReentrantLock} does) or while waiting; the flag is
     *     cleared and nothing is left behind on Redis
     * @throws RedisUnavailableException as {@link #lock()}
     */
    @Override
    void lockInterruptibly() throws InterruptedException;

    /**
     * As {@link #lock(long, TimeUnit)}, but an interrupt ends the wait, as
     * {@link #lockInterruptibly()}.
     *
     * @param leaseTime a fixed lease, never renewed; {@code <= 0} means a watchdog lease instead
     * @param unit the unit of {@code leaseTime}
     * @throws InterruptedException when interrupted before or while waiting; the flag is cleared
     *     and nothing is left behind on Redis
     * @throws RedisUnavailableException as {@link #lock()}
     */
    void lockInterruptibly(long leaseTime, TimeUnit unit) throws InterruptedException;

    /**
     * Makes one attempt to acquire the lock for the calling thread, without waiting for a
     * holder, with a watchdog lease (as {@link #lock()}).
     *
     * <p>Not interruptible: an interrupt is kept and re-asserted on return. Blocks at most twice
     * the command timeout, for Redis's answer.
     *
     * @return whether the lock was acquired; {@code false} when another owner holds it
     * @throws RedisUnavailableException when Redis did not answer in time, or at once while the
     *     connection is known to be down; the message names the address and the operation
     */
    @Override
    boolean tryLock();

    /**
     * Tries to acquire the lock for the calling thread within {@code waitTime}, with a watchdog
     * lease (as {@link #lock()}). Returns within the wait plus twice the command timeout.
     *
     * @param waitTime how long to wait at most; {@code 0} means one attempt
     * @param unit the unit of {@code waitTime}
     * @return whether the lock was acquired; {@code false} when the wait ran out
     * @throws InterruptedException when the thread was interrupted before the call (at once) or
     *     while waiting; the flag is cleared and nothing is left behind on Redis
     * @throws RedisUnavailableException when Redis could not be reached before the wait plus
     *     twice the command timeout ran out; the message names the address and the operation
     */
    @Override
    boolean tryLock(long waitTime, TimeUnit unit) throws InterruptedException;

    /**
     * Tries to acquire the lock within {@code waitTime}, as {@link #tryLock(long, TimeUnit)}.
     *
     * @param waitTime how long to wait at most; {@code 0} means one attempt
     * @param leaseTime a fixed lease, never renewed; {@code <= 0} (zero or negative, as in Redisson)
     *     means a watchdog lease instead; at most {@link #MAX_LEASE}
     * @param unit the unit of {@code waitTime} and {@code leaseTime}
     * @return whether the lock was acquired
     * @throws InterruptedException when interrupted before or while waiting; the flag is cleared
     *     and nothing is left behind on Redis
     * @throws RedisUnavailableException as {@link #tryLock(long, TimeUnit)}
     */
    boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException;

    /**
     * Drops one hold of the calling thread; the last one deletes the lock and wakes waiters.
     * Blocks at most twice the command timeout.
     *
     * @throws IllegalMonitorStateException when the calling thread does not hold the lock,
     *     including when its lease ran out (or could have, with renewals unanswered)
     * @throws RedisUnavailableException when Redis did not answer in time: the unlock could not
     *     be confirmed; of a last hold, the watchdog stops renewing it, and if the unlock did not
     *     land it lasts until its lease runs out
     */
    @Override
    void unlock();

    /**
     * Deletes the lock whoever holds it and wakes waiters.
     *
     * @return whether it was held
     */
    boolean forceUnlock();

    /**
     * Whether any owner holds the lock now. One Redis read.
     *
     * @return whether the lock is held
     */
    boolean isLocked();

    /**
     * Whether the calling thread holds the lock now. One Redis read; none, and {@code false}, once
     * renewals went unanswered until the lease could have run out.
     *
     * @return whether the calling thread holds the lock
     */
    boolean isHeldByCurrentThread();

    /**
     * Whether the owner id {@code threadId} of this client holds the lock now. One Redis read.
     *
     * @param threadId the owner id: a thread's id, or the one given to the asynchronous methods
     * @return whether that owner holds the lock
     */
    boolean isHeldByThread(long threadId);

    /**
     * The calling thread's hold count. One Redis read.
     *
     * @return the count, 0 when the calling thread does not hold the lock
     */
    int getHoldCount();

    /**
     * Milliseconds left on the lease. One Redis read.
     *
     * @return the lock's TTL in milliseconds: {@code -2} when the lock is not held, {@code -1}
     *     when it is held without expiry
     */
    long remainTimeToLive();

    /**
     * Not supported: a condition would need a distributed wait set.
     *
     * @throws UnsupportedOperationException always
     */
    @Override
    Condition newCondition();

    /**
     * This lock's lease factory, which its lease methods ({@link #acquire()} to
     * {@link #withLockAsync(Function)}) delegate to. Cheap; no Redis call.
     *
     * @return the factory that hands out this lock's leases
     */
    LeaseFactory leases();

    /**
     * Acquires a {@link LockLease}, waiting as long as it takes, with a watchdog lease. As
     * {@link #lock()}: not interruptible (an interrupt is kept and re-asserted on return).
     *
     * @return the lease, to be released by any thread
     */
    default LockLease acquire() {
        return acquire(Duration.ZERO);
    }

    /**
     * Acquires a {@link LockLease}, waiting as long as it takes.
     *
     * @param leaseTime the lease; {@link Duration#ZERO} means a watchdog lease; at most
     *     {@link #MAX_LEASE}
     * @return the lease, to be released by any thread
     * @throws IllegalArgumentException for a negative lease (unlike {@link #lock(long, TimeUnit)},
     *     which reads one as the watchdog's, as Redisson does) or one above {@link #MAX_LEASE}, at
     *     the call
     */
    default LockLease acquire(Duration leaseTime) {
        return leases().acquire(leaseTime);
    }

    /**
     * Tries to acquire a {@link LockLease} with a watchdog lease within {@code waitTime}.
     *
     * @param waitTime how long to wait at most; {@link Duration#ZERO} means one attempt
     * @return the lease, or empty when the wait ran out
     * @throws InterruptedException when interrupted before or while waiting; nothing is left behind
     */
    default Optional<LockLease> tryAcquire(Duration waitTime) throws InterruptedException {
        return tryAcquire(waitTime, Duration.ZERO);
    }

    /**
     * Tries to acquire a {@link LockLease} within {@code waitTime}.
     *
     * @param waitTime how long to wait at most; {@link Duration#ZERO} means one attempt
     * @param leaseTime the lease; {@link Duration#ZERO} means a watchdog lease
     * @return the lease, or empty when the wait ran out
     * @throws InterruptedException when interrupted before or while waiting; nothing is left behind
     */
    default Optional<LockLease> tryAcquire(Duration waitTime, Duration leaseTime) throws InterruptedException {
        return leases().tryAcquire(waitTime, leaseTime);
    }

    /**
     * As {@link #acquire()}, without blocking. Cancelling the future stops the wait.
     *
     * @return a future of the lease
     */
    default CompletableFuture<LockLease> acquireAsync() {
        return acquireAsync(Duration.ZERO);
    }

    /**
     * As {@link #acquire(Duration)}, without blocking. Cancelling the future stops the wait.
     *
     * @param leaseTime the lease; {@link Duration#ZERO} means a watchdog lease
     * @return a future of the lease
     */
    default CompletableFuture<LockLease> acquireAsync(Duration leaseTime) {
        return leases().acquireAsync(leaseTime);
    }

    /**
     * As {@link #tryAcquire(Duration)}, without blocking. Cancelling the future stops the wait.
     *
     * @param waitTime how long to wait at most; {@link Duration#ZERO} means one attempt
     * @return a future of the lease, or of empty when the wait ran out
     */
    default CompletableFuture<Optional<LockLease>> tryAcquireAsync(Duration waitTime) {
        return tryAcquireAsync(waitTime, Duration.ZERO);
    }

    /**
     * As {@link #tryAcquire(Duration, Duration)}, without blocking. Cancelling the future stops
     * the wait.
     *
     * @param waitTime how long to wait at most; {@link Duration#ZERO} means one attempt
     * @param leaseTime the lease; {@link Duration#ZERO} means a watchdog lease
     * @return a future of the lease, or of empty when the wait ran out
     */
    default CompletableFuture<Optional<LockLease>> tryAcquireAsync(Duration waitTime, Duration leaseTime) {
        return leases().tryAcquireAsync(waitTime, leaseTime);
    }

    /**
     * Runs {@code work} on the calling thread under a watchdog lease acquired within
     * {@code waitTime}, and releases the lease when it ends. When the lease is lost, or could run
     * out within a tenth of its length with no renewal answered (Redis stalled or unreachable),
     * the calling thread is interrupted, so that work which heeds interrupts stops before the lease
     * can expire; the work's outcome is then replaced by a {@link LeaseLostException}.
     *
     * @param <T> the work's result
     * @param waitTime how long to wait for the lock at most; {@link Duration#ZERO} means one attempt
     * @param work what to run under the lease, given the lease
     * @return what the work returned; empty when the wait ran out (or the work returned null)
     * @throws LeaseLostException when the lease was lost, or could no longer be counted on, while
     *     the work ran
     * @throws InterruptedException when interrupted while waiting for the lock
     */
    default <T extends @Nullable Object> Optional<T> withLock(Duration waitTime,
            Function<? super LockLease, ? extends T> work)
            throws InterruptedException {
        return leases().withLock(waitTime, work);
    }

    /**
     * As {@link #withLock}, for work without a result:
     * {@code lock.runWithLock(Duration.ofSeconds(5), lease -> ship(order))}. Runs {@code work} on
     * the calling thread under a watchdog lease acquired within {@code waitTime}, and releases the
     * lease when it ends, returned or thrown (a failure of the work reaches the caller after the
     * release). When the wait runs out, the work does not run. When the lease is lost, or could
     * run out within a tenth of its length with no renewal answered, the calling thread is
     * interrupted and this throws {@link LeaseLostException}, as {@code withLock} does. (Not an
     * overload of {@code withLock}: javac could not choose one for {@code lease -> ship(order)}.)
     *
     * @param waitTime how long to wait for the lock at most; {@link Duration#ZERO} means one attempt
     * @param work what to run under the lease, given the lease
     * @return true when the work ran under the lock; false when the wait ran out and it did not run
     * @throws LeaseLostException when the lease was lost, or could no longer be counted on, while
     *     the work ran
     * @throws InterruptedException when interrupted while waiting for the lock; the work did not run
     */
    default boolean runWithLock(Duration waitTime, Consumer<? super LockLease> work) throws InterruptedException {
        return leases().runWithLock(waitTime, work);
    }

    /**
     * As {@link #withLock}, without blocking: {@code work} starts once a watchdog lease is held
     * (on the thread that acquired it) and returns a stage; the lease is released when the stage
     * completes. A lease lost while the stage runs cancels it, and the future fails with
     * {@link LeaseLostException}. Cancelling the future stops the wait, or cancels the work's stage.
     *
     * @param <T> the stage's result
     * @param waitTime how long to wait for the lock at most; {@link Duration#ZERO} means one attempt
     * @param work what to start under the lease, given the lease; must not block
     * @return a future of the stage's value; empty when the wait ran out (or the value was null)
     */
    default <T extends @Nullable Object> CompletableFuture<Optional<T>> withLockAsync(Duration waitTime,
            Function<? super LockLease, ? extends CompletionStage<T>> work) {
        return leases().withLockAsync(waitTime, work);
    }

    /**
     * As {@link #withLockAsync(Duration, Function)}, for a stage without a result (such as a
     * {@code CompletableFuture<Void>}), whose {@code Optional} could not tell whether the work ran:
     * the future completes with true once the work's stage completed under the lease and the lease
     * was released, with false when the wait ran out and the work did not start. A lease lost
     * while the stage runs cancels it, and the future fails with {@link LeaseLostException}; a
     * failed stage fails the future after the release. Cancelling the future stops the wait, or
     * cancels the work's stage. The work starts on the thread that acquired the lease: it must not
     * block.
     *
     * @param <T> the stage's result, ignored
     * @param waitTime how long to wait for the lock at most; {@link Duration#ZERO} means one attempt
     * @param work what to start under the lease, given the lease; must not block
     * @return a future of whether the work ran under the lock
     */
    default <T extends @Nullable Object> CompletableFuture<Boolean> runWithLockAsync(Duration waitTime,
            Function<? super LockLease, ? extends CompletionStage<T>> work) {
        return leases().runWithLockAsync(waitTime, work);
    }

    /**
     * As {@link #withLockAsync(Duration, Function)}, waiting as long as it takes.
     *
     * @param <T> the stage's result
     * @param work what to start under the lease, given the lease; must not block
     * @return a future of the stage's value
     */
    default <T extends @Nullable Object> CompletableFuture<T> withLockAsync(
            Function<? super LockLease, ? extends CompletionStage<T>> work) {
        return leases().withLockAsync(work);
    }
}
