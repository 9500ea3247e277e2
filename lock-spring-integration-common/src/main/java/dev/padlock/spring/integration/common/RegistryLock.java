package dev.padlock.spring.integration.common;

import static java.util.Objects.requireNonNull;

import dev.padlock.PadlockException;
import dev.padlock.RLock;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import org.springframework.dao.CannotAcquireLockException;

/**
 * One lock of a registry: Padlock's {@link RLock} named {@code <registryKey>:<key>}; the
 * registry's {@link LocalHolds} count each thread's holds of the key, which tells "not yours" from
 * "expired" at unlock. Behaves as {@code RedisLockRegistry}'s locks do where their users rely on it:
 * <ul>
 *   <li>reentrant per thread, and a re-entrant {@code tryLock} by the holder sets the lease again
 *       ({@code LockRegistryLeaderInitiator}'s heartbeat relies on it);</li>
 *   <li>{@link #unlock()} by a thread that does not hold the lock throws
 *       {@link IllegalStateException}; after the lease ran out (the lock may have been taken
 *       meanwhile) it throws {@link ConcurrentModificationException}, "Lock was released in the
 *       store due to expiration";</li>
 *   <li>Redis failures while locking throw {@link CannotAcquireLockException}.</li>
 * </ul>
 *
 * <p>{@link #lock(Duration)} and {@link #tryLock(Duration, Duration)} take the fixed lease given
 * (Spring Integration 7's {@code DistributedLock} declares both); the other methods take the
 * registry's default lease. A line's registry subclasses it only to add its lock interface.
 * Thread-safe.
 */
public class RegistryLock implements Lock {
    private static final String EXPIRED = "Lock was released in the store due to expiration. "
            + "The integrity of data protected by this lock may have been compromised.";

    private final String key;
    private final String name;
    private final RLock lock;
    private final long defaultLeaseMillis;
    private final LocalHolds holds;
    private volatile long lockedAt = System.currentTimeMillis();

    /**
     * The lock of {@code key} in {@code registry}; made by the registry's {@code newLock} function.
     *
     * @param registry the registry whose client, name prefix and default lease it uses
     * @param key the registry key of this lock
     */
    protected RegistryLock(RegistryLocks<?> registry, String key) {
        requireNonNull(registry, "registry");
        this.key = requireNonNull(key, "key");
        this.name = registry.lockName(key);
        this.lock = registry.client.getLock(name);
        this.defaultLeaseMillis = registry.defaultLeaseMillis;
        this.holds = registry.holds;
    }

    final String key() {
        return key;
    }

    final long lockedAt() {
        return lockedAt;
    }

    @Override
    public final void lock() {
        lock(defaultLeaseMillis);
    }

    /**
     * Waits without bound, then holds for {@code ttl} (no renewal).
     *
     * @throws CannotAcquireLockException when Redis fails
     */
    public final void lock(Duration ttl) {
        lock(RegistryLocks.positiveMillis(ttl, "ttl"));
    }

    private void lock(long leaseMillis) {
        try {
            lock.lock(leaseMillis, TimeUnit.MILLISECONDS);
        } catch (PadlockException e) {
            throw new CannotAcquireLockException("Failed to lock mutex at " + name, e);
        }
        acquired();
    }

    @Override
    public final void lockInterruptibly() throws InterruptedException {
        try {
            lock.lockInterruptibly(defaultLeaseMillis, TimeUnit.MILLISECONDS);
        } catch (PadlockException e) {
            throw new CannotAcquireLockException("Failed to lock mutex at " + name, e);
        }
        acquired();
    }

    @Override
    public final boolean tryLock() {
        try {
            return tryLock(0, defaultLeaseMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public final boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        requireNonNull(unit, "unit");
        return tryLock(Math.max(0, unit.toMillis(time)), defaultLeaseMillis);
    }

    /**
     * Waits at most {@code waitTime}, then holds for {@code ttl} (no renewal); a re-entry by the
     * holder sets the lease to {@code ttl} again.
     *
     * @throws CannotAcquireLockException when Redis fails
     */
    public final boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
        requireNonNull(waitTime, "waitTime");
        return tryLock(Math.max(0, waitTime.toMillis()), RegistryLocks.positiveMillis(ttl, "ttl"));
    }

    private boolean tryLock(long waitMillis, long leaseMillis) throws InterruptedException {
        boolean got;
        try {
            // a re-entry by the holder sets the lease again: Padlock's acquire re-arms it
            got = lock.tryLock(waitMillis, leaseMillis, TimeUnit.MILLISECONDS);
        } catch (PadlockException e) {
            throw new CannotAcquireLockException("Failed to lock mutex at " + name, e);
        }
        if (got) {
            acquired();
        }
        return got;
    }

    private void acquired() {
        holds.acquired(key, Thread.currentThread().getId());
        lockedAt = System.currentTimeMillis();
    }

    /**
     * Drops one hold of the calling thread.
     *
     * @throws IllegalStateException when the calling thread does not hold the lock
     * @throws ConcurrentModificationException when the lease ran out before (the hold is gone locally too)
     */
    @Override
    public final void unlock() {
        long thread = Thread.currentThread().getId();
        if (!holds.holds(key, thread)) {
            throw new IllegalStateException("You do not own lock at " + name);
        }
        try {
            lock.unlock();
        } catch (IllegalMonitorStateException e) {
            ConcurrentModificationException expired = new ConcurrentModificationException(EXPIRED);
            expired.initCause(e);
            throw expired;
        } finally {
            // only once Redis answered: a registry's destroy waits for it before its client closes
            holds.released(key, thread);
        }
    }

    /** Not supported, as for {@code RedisLockRegistry}'s locks. */
    @Override
    public final Condition newCondition() {
        throw new UnsupportedOperationException("Conditions are not supported");
    }

    /** The lock's Redis name. */
    public final String name() {
        return name;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + name + "]";
    }
}
