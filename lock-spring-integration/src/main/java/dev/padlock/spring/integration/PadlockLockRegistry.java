package dev.padlock.spring.integration;

import static java.util.Objects.requireNonNull;

import dev.padlock.LockClient;
import dev.padlock.PadlockException;
import dev.padlock.RLock;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * A Spring Integration lock registry on Padlock: {@link #obtain(Object)} gives, for a {@code
 * String} key, a {@link DistributedLock} over the Padlock {@link RLock} named
 * {@code <registryKey>:<key>} (a Redisson-format lock hash, reentrant, woken by pub/sub on a
 * single server, Sentinel and Cluster alike; no polling).
 *
 * <p>Behaves as {@code RedisLockRegistry} does where its users rely on it:
 * <ul>
 *   <li>locks are reentrant per thread, and a re-entrant {@code tryLock} by the holder sets the
 *       lease again ({@code LockRegistryLeaderInitiator}'s heartbeat relies on it);</li>
 *   <li>{@code unlock()} by a thread that does not hold the lock throws {@link
 *       IllegalStateException}; an unlock after the lease ran out (the lock may have been taken
 *       meanwhile) throws {@link ConcurrentModificationException}, "Lock was released in the store
 *       due to expiration";</li>
 *   <li>Redis failures while locking throw {@link CannotAcquireLockException};</li>
 *   <li>{@link #renewLock} throws {@link IllegalStateException} when the lock is not held by this
 *       process; {@link #expireUnusedOlderThan} drops cached lock objects nobody holds.</li>
 * </ul>
 *
 * <p>Leases: made with {@link #PadlockLockRegistry(LockClient, String)}, locks taken without a
 * ttl hold with Padlock's watchdog lease, renewed until unlock (they do not expire while the
 * process lives, and expire within the client's watchdog timeout when it dies); made with
 * {@link #PadlockLockRegistry(LockClient, String, Duration)}, they hold for that fixed lease, as
 * {@code RedisLockRegistry}'s {@code expireAfter}. {@code lock(Duration)} and
 * {@code tryLock(Duration, Duration)} always take the fixed lease given.
 *
 * <p>Thread-safe. The registry does not close the client. When its application context closes,
 * {@link #destroy()} waits (at most {@value #RELEASE_WAIT_MILLIS} ms) for this process's holders
 * to unlock before the client's bean, which the registry depends on, is closed: a
 * {@code LockRegistryLeaderInitiator} stopped just before releases its lock on its own thread, and
 * a lock still held when the client closes stays on Redis until its lease runs out.
 */
public final class PadlockLockRegistry implements ExpirableLockRegistry<DistributedLock>,
        RenewableLockRegistry<DistributedLock>, DisposableBean {
    private static final String EXPIRED = "Lock was released in the store due to expiration. "
            + "The integrity of data protected by this lock may have been compromised.";

    /** A bound on each call of a renewal; Padlock bounds its calls by its command timeout already. */
    private static final long RENEW_TIMEOUT_SECONDS = 30;
    /** The longest {@link #destroy()} waits for this process's holders to unlock. */
    static final long RELEASE_WAIT_MILLIS = 2_000;

    private final LockClient client;
    private final String registryKey;
    /** The default lease in milliseconds; -1 for the watchdog's. */
    private final long defaultLeaseMillis;
    private final ConcurrentHashMap<String, PadlockDistributedLock> locks = new ConcurrentHashMap<>();

    /**
     * A registry whose locks, taken without a ttl, hold with Padlock's watchdog lease.
     *
     * @param registryKey the prefix of every lock's name, {@code <registryKey>:<key>}
     */
    public PadlockLockRegistry(LockClient client, String registryKey) {
        this(client, registryKey, -1);
    }

    /**
     * A registry whose locks, taken without a ttl, hold for {@code expireAfter} (no renewal), as
     * {@code RedisLockRegistry}'s do.
     */
    public PadlockLockRegistry(LockClient client, String registryKey, Duration expireAfter) {
        this(client, registryKey, positiveMillis(expireAfter, "expireAfter"));
    }

    private PadlockLockRegistry(LockClient client, String registryKey, long defaultLeaseMillis) {
        this.client = requireNonNull(client, "client");
        this.registryKey = requireNonNull(registryKey, "registryKey");
        this.defaultLeaseMillis = defaultLeaseMillis;
    }

    private static long positiveMillis(Duration duration, String name) {
        requireNonNull(duration, name);
        if (duration.toMillis() <= 0) {
            throw new IllegalArgumentException(name + " must be at least 1 ms, was " + duration);
        }
        return duration.toMillis();
    }

    /**
     * The lock of {@code lockKey}, the same object while it is cached.
     *
     * @param lockKey a {@code String}
     * @throws IllegalArgumentException when {@code lockKey} is not a {@code String}
     */
    @Override
    public DistributedLock obtain(Object lockKey) {
        return locks.computeIfAbsent(key(lockKey), PadlockDistributedLock::new);
    }

    /**
     * Waits, at most {@value #RELEASE_WAIT_MILLIS} ms, until no thread of this process holds a lock
     * of this registry (see the class notes); never fails.
     */
    @Override
    public void destroy() {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RELEASE_WAIT_MILLIS);
        while (locks.values().stream().anyMatch(PadlockDistributedLock::isAcquiredInThisProcess)
                && System.nanoTime() - deadline < 0) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Drops the cached lock objects that nobody in this process holds and that were last taken {@code age} ms ago or more. */
    @Override
    public void expireUnusedOlderThan(long age) {
        long now = System.currentTimeMillis();
        locks.values().removeIf(lock -> !lock.isAcquiredInThisProcess() && now - lock.lockedAt >= age);
    }

    /** Sets the lease of the held lock of {@code lockKey} again: the registry's default lease, or the watchdog's. */
    @Override
    public void renewLock(Object lockKey) {
        renew(key(lockKey), defaultLeaseMillis);
    }

    /** Sets the lease of the held lock of {@code lockKey} to {@code ttl}. */
    @Override
    public void renewLock(Object lockKey, Duration ttl) {
        renew(key(lockKey), positiveMillis(ttl, "ttl"));
    }

    private void renew(String key, long leaseMillis) {
        PadlockDistributedLock lock = locks.get(key);
        Long holder = lock == null ? null : lock.anyHolder();
        if (holder == null || !lock.renew(holder, leaseMillis)) {
            throw new IllegalStateException("Could not renew mutex at " + lockName(key));
        }
    }

    private static String key(Object lockKey) {
        requireNonNull(lockKey, "lockKey");
        if (!(lockKey instanceof String key)) {
            throw new IllegalArgumentException("lockKey must be a String, got " + lockKey.getClass().getName());
        }
        return key;
    }

    private String lockName(String key) {
        return registryKey + ':' + key;
    }

    @Override
    public String toString() {
        return "PadlockLockRegistry{registryKey=" + registryKey + ", client=" + client + '}';
    }

    /**
     * One lock of the registry: the {@link RLock}, plus how many holds each thread of this process
     * has, which tells "not yours" from "expired" at unlock.
     */
    private final class PadlockDistributedLock implements DistributedLock {
        private final String name;
        private final RLock lock;
        /** Holds by thread id; an entry exists while its thread holds. */
        private final ConcurrentHashMap<Long, Integer> holds = new ConcurrentHashMap<>();
        private volatile long lockedAt = System.currentTimeMillis();

        PadlockDistributedLock(String key) {
            this.name = lockName(key);
            this.lock = client.getLock(name);
        }

        boolean isAcquiredInThisProcess() {
            return !holds.isEmpty();
        }

        Long anyHolder() {
            return holds.keySet().stream().findFirst().orElse(null);
        }

        @Override
        public void lock() {
            lock(defaultLeaseMillis);
        }

        @Override
        public void lock(Duration ttl) {
            lock(positiveMillis(ttl, "ttl"));
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
        public void lockInterruptibly() throws InterruptedException {
            try {
                lock.lockInterruptibly(defaultLeaseMillis, TimeUnit.MILLISECONDS);
            } catch (PadlockException e) {
                throw new CannotAcquireLockException("Failed to lock mutex at " + name, e);
            }
            acquired();
        }

        @Override
        public boolean tryLock() {
            try {
                return tryLock(0, defaultLeaseMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        @Override
        public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
            requireNonNull(unit, "unit");
            return tryLock(Math.max(0, unit.toMillis(time)), defaultLeaseMillis);
        }

        @Override
        public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
            requireNonNull(waitTime, "waitTime");
            return tryLock(Math.max(0, waitTime.toMillis()), positiveMillis(ttl, "ttl"));
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
            holds.merge(Thread.currentThread().getId(), 1, Integer::sum);
            lockedAt = System.currentTimeMillis();
        }

        @Override
        public void unlock() {
            long thread = Thread.currentThread().getId();
            Integer count = holds.get(thread); // only this thread changes its own entry
            if (count == null) {
                throw new IllegalStateException("You do not own lock at " + name);
            }
            if (count == 1) {
                holds.remove(thread);
            } else {
                holds.put(thread, count - 1);
            }
            try {
                lock.unlock();
            } catch (IllegalMonitorStateException e) {
                ConcurrentModificationException expired = new ConcurrentModificationException(EXPIRED);
                expired.initCause(e);
                throw expired;
            }
        }

        /** Renews {@code holder}'s hold: a re-entry with the new lease, then its release. */
        boolean renew(long holder, long leaseMillis) {
            try {
                if (!lock.isHeldByThread(holder)) {
                    return false;
                }
                if (!lock.tryLockAsync(0, leaseMillis, TimeUnit.MILLISECONDS, holder).get(RENEW_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                    return false;
                }
                lock.unlockAsync(holder).get(RENEW_TIMEOUT_SECONDS, TimeUnit.SECONDS);
                return true;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            } catch (ExecutionException | TimeoutException | PadlockException e) {
                return false;
            }
        }

        @Override
        public Condition newCondition() {
            throw new UnsupportedOperationException("Conditions are not supported");
        }

        @Override
        public String toString() {
            return "PadlockDistributedLock[" + name + "]";
        }
    }
}
