package dev.padlock.spring.integration.common;

import static java.util.Objects.requireNonNull;

import dev.padlock.LockClient;
import dev.padlock.LockLease;
import dev.padlock.PadlockException;
import dev.padlock.RLock;
import dev.padlock.spi.LeaseExtension;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;

/**
 * The locks of one registry and what a Spring Integration lock registry does with them, for
 * either line: {@link #obtain(Object)} (one cached {@link RegistryLock} a {@code String} key, over
 * the {@code RLock} named {@code <registryKey>:<key>}), {@link #renewLock(Object)},
 * {@link #expireUnusedOlderThan(long)} and {@link #awaitRelease()}. Each line's registry holds one
 * and makes its locks, a subclass of {@link RegistryLock} that also implements that line's lock
 * type (Spring Integration 7's {@code DistributedLock}; a plain {@code Lock} on 6.5).
 *
 * <p>Leases: made without {@code expireAfter}, locks taken without a ttl hold with Padlock's
 * watchdog lease, renewed until unlock; with it, they hold for that fixed lease, as
 * {@code RedisLockRegistry}'s {@code expireAfter}. Thread-safe. It never closes the client.
 *
 * @param <L> the registry's lock type
 */
public final class RegistryLocks<L extends RegistryLock> {
    /** The longest {@link #awaitRelease()} waits for this process's holders to unlock. */
    public static final long RELEASE_WAIT_MILLIS = 2_000;
    /** The default lease of a registry without {@code expireAfter}: the watchdog's. */
    static final long WATCHDOG_LEASE = -1;
    /** A bound on a renewal's call; Padlock bounds its calls by its command timeout already. */
    private static final long RENEW_TIMEOUT_SECONDS = 30;

    final LockClient client;
    private final String registryKey;
    /** The default lease in milliseconds; {@link #WATCHDOG_LEASE} for the watchdog's. */
    final long defaultLeaseMillis;
    /** Which threads hold each key: not the cache below, which drops objects. */
    final LocalHolds holds = new LocalHolds();
    private final BiFunction<RegistryLocks<L>, String, L> newLock;
    private final ConcurrentHashMap<String, L> locks = new ConcurrentHashMap<>();

    /**
     * The locks of a registry.
     *
     * @param client the client every lock uses (not closed here)
     * @param registryKey the prefix of every lock's name, {@code <registryKey>:<key>}
     * @param expireAfter the fixed lease of locks taken without a ttl; null for the watchdog's lease
     * @param newLock makes the lock of a key: the subclass's constructor, which passes both
     *     arguments to {@link RegistryLock#RegistryLock(RegistryLocks, String)}
     * @throws IllegalArgumentException when {@code expireAfter} is under 1 ms
     */
    public RegistryLocks(LockClient client, String registryKey, Duration expireAfter,
            BiFunction<RegistryLocks<L>, String, L> newLock) {
        this.client = requireNonNull(client, "client");
        this.registryKey = requireNonNull(registryKey, "registryKey");
        this.defaultLeaseMillis = expireAfter == null ? WATCHDOG_LEASE : positiveMillis(expireAfter, "expireAfter");
        this.newLock = requireNonNull(newLock, "newLock");
    }

    /** {@code duration} as a lease in milliseconds: at least 1 ms, at most {@link RLock#MAX_LEASE}. */
    static long positiveMillis(Duration duration, String name) {
        requireNonNull(duration, name);
        if (duration.compareTo(RLock.MAX_LEASE) > 0) {
            throw new IllegalArgumentException(name + " must be at most " + RLock.MAX_LEASE.toMillis()
                    + " ms (about 24.8 days, RLock.MAX_LEASE), was " + duration);
        }
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
    public L obtain(Object lockKey) {
        return locks.computeIfAbsent(key(lockKey), key -> newLock.apply(this, key));
    }

    /**
     * A lease of the lock of {@code lockKey} acquired within {@code waitTime}, with the registry's
     * lease ({@code expireAfter}, else the watchdog's): owned by the returned handle, not by a
     * thread, so any thread may release it. Spring's {@code Lock} is owned by threads; a lease is
     * the way to pass a registry lock between threads. {@link #awaitRelease()} does not wait for
     * leases.
     *
     * @return the lease, or empty when the wait ran out
     */
    public Optional<LockLease> tryAcquireLease(Object lockKey, Duration waitTime) throws InterruptedException {
        RLock lock = client.getLock(lockName(key(lockKey)));
        return lock.tryAcquire(waitTime, defaultLeaseMillis == WATCHDOG_LEASE ? Duration.ZERO
                : Duration.ofMillis(defaultLeaseMillis));
    }

    /**
     * Waits, at most {@value #RELEASE_WAIT_MILLIS} ms, until no thread of this process holds a lock
     * of this registry; never fails. A registry calls it when its context closes, before the
     * client's bean is closed: a lock still held when the client closes stays on Redis until its
     * lease runs out.
     */
    public void awaitRelease() {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RELEASE_WAIT_MILLIS);
        while (!holds.isEmpty() && System.nanoTime() - deadline < 0) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * Drops the cached lock objects that nobody in this process holds and that were last taken
     * {@code age} ms ago or more.
     */
    public void expireUnusedOlderThan(long age) {
        long now = System.currentTimeMillis();
        locks.values().removeIf(lock -> !holds.isHeld(lock.key()) && now - lock.lockedAt() >= age);
    }

    /**
     * Extends the lease of the hold a thread of this process has of {@code lockKey}'s lock to the
     * registry's default lease, or the watchdog's; see {@link #renewLock(Object, Duration)}.
     *
     * @throws IllegalStateException when no thread of this process holds it, or Redis says it is not held
     */
    public void renewLock(Object lockKey) {
        renew(key(lockKey), defaultLeaseMillis);
    }

    /**
     * Extends the lease of the hold a thread of this process has of {@code lockKey}'s lock to
     * {@code ttl}: one call to Redis, which extends only while that hold is there. It never takes or
     * drops a hold (an {@code unlock()} racing it leaves nothing behind), never shortens a longer
     * lease, and a hold the watchdog renews stays renewed. The holder is found whichever lock object
     * it locked through, even one {@link #expireUnusedOlderThan} dropped.
     *
     * @throws IllegalStateException when no thread of this process holds it (then nothing is sent),
     *     or Redis says it is not held or fails
     */
    public void renewLock(Object lockKey, Duration ttl) {
        renew(key(lockKey), positiveMillis(ttl, "ttl"));
    }

    private void renew(String key, long leaseMillis) {
        Long holder = holds.anyHolder(key);
        if (holder == null) {
            throw new IllegalStateException("Could not renew mutex at " + lockName(key) + ": not held in this process");
        }
        boolean extended;
        try {
            extended = LeaseExtension.extend(client, lockName(key), holder, leaseMillis)
                    .get(RENEW_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Could not renew mutex at " + lockName(key) + ": interrupted", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("Could not renew mutex at " + lockName(key), e.getCause());
        } catch (TimeoutException | PadlockException e) {
            throw new IllegalStateException("Could not renew mutex at " + lockName(key), e);
        }
        if (!extended) {
            throw new IllegalStateException("Could not renew mutex at " + lockName(key) + ": not held on Redis");
        }
    }

    private static String key(Object lockKey) {
        requireNonNull(lockKey, "lockKey");
        if (!(lockKey instanceof String key)) {
            throw new IllegalArgumentException("lockKey must be a String, got " + lockKey.getClass().getName());
        }
        return key;
    }

    String lockName(String key) {
        return registryKey + ':' + key;
    }

    /** {@code registryKey=..., client=...}, for the registries' {@code toString()}. */
    @Override
    public String toString() {
        return "registryKey=" + registryKey + ", client=" + client;
    }
}
