package dev.padlock.spring.integration6;

import static java.util.Objects.requireNonNull;

import dev.padlock.LockClient;
import dev.padlock.LockLease;
import dev.padlock.RLock;
import dev.padlock.spring.integration.common.RegistryLock;
import dev.padlock.spring.integration.common.RegistryLocks;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.Optional;
import java.util.concurrent.locks.Lock;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * A Spring Integration 6.5 lock registry on Padlock, for Spring Boot 3.5 applications: the same
 * registry as {@code dev.padlock.spring.integration.PadlockLockRegistry} (Spring Integration 7),
 * written on the same {@link RegistryLocks}, behind 6.5's interfaces, whose locks are plain
 * {@link Lock}s. {@link #obtain(Object)} gives, for a {@code String} key, a lock over the Padlock
 * {@link RLock} named {@code <registryKey>:<key>} (a Redisson-format lock hash, reentrant, woken by
 * pub/sub on a single server, Sentinel and Cluster alike; no polling).
 *
 * <p>Named for its line, as its module is, so that bean listings, logs and stack traces say which
 * line's registry runs; an application that moves to Spring Integration 7 changes its module, and
 * the compiler then points at every use of the old name.
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
 *   <li>{@link #renewLock} only extends the lease of a hold a thread of this process has (it never
 *       takes a hold of its own), and throws {@link IllegalStateException} when there is none;
 *       {@link #expireUnusedOlderThan} drops cached lock objects nobody holds.</li>
 * </ul>
 * Spring Integration 6.5's {@code RenewableLockRegistry} has {@code renewLock(Object)} only; this
 * registry also has {@link #renewLock(Object, Duration)}, as version 7's interface does.
 * {@code setRenewalTaskScheduler} keeps 6.5's default (nothing): locks taken without a ttl hold
 * with the watchdog's lease, which Padlock renews itself.
 *
 * <p>Leases: made with {@link #PadlockLockRegistry6(LockClient, String)}, locks taken without a
 * ttl hold with Padlock's watchdog lease, renewed until unlock (they do not expire while the
 * process lives, and expire within the client's watchdog timeout when it dies); made with
 * {@link #PadlockLockRegistry6(LockClient, String, Duration)}, they hold for that fixed lease, as
 * {@code RedisLockRegistry}'s {@code expireAfter}.
 *
 * <p>Thread-safe. The registry does not close the client. When its application context closes,
 * {@link #destroy()} waits (at most {@value RegistryLocks#RELEASE_WAIT_MILLIS} ms) for this
 * process's holders to unlock before the client's bean, which the registry depends on, is closed.
 */
public final class PadlockLockRegistry6 implements ExpirableLockRegistry, RenewableLockRegistry, DisposableBean {
    private final RegistryLocks<Padlock6Lock> locks;

    /**
     * A registry whose locks, taken without a ttl, hold with Padlock's watchdog lease.
     *
     * @param registryKey the prefix of every lock's name, {@code <registryKey>:<key>}
     */
    public PadlockLockRegistry6(LockClient client, String registryKey) {
        this.locks = new RegistryLocks<>(client, registryKey, null, Padlock6Lock::new);
    }

    /**
     * A registry whose locks, taken without a ttl, hold for {@code expireAfter} (no renewal), as
     * {@code RedisLockRegistry}'s do.
     */
    public PadlockLockRegistry6(LockClient client, String registryKey, Duration expireAfter) {
        this.locks = new RegistryLocks<>(client, registryKey, requireNonNull(expireAfter, "expireAfter"),
                Padlock6Lock::new);
    }

    /**
     * The lock of {@code lockKey}, the same object while it is cached.
     *
     * @param lockKey a {@code String}
     * @throws IllegalArgumentException when {@code lockKey} is not a {@code String}
     */
    @Override
    public Lock obtain(Object lockKey) {
        return locks.obtain(lockKey);
    }

    /**
     * Waits, at most {@value RegistryLocks#RELEASE_WAIT_MILLIS} ms, until no thread of this process
     * holds a lock of this registry (see the class notes); never fails.
     */
    @Override
    public void destroy() {
        locks.awaitRelease();
    }

    /** Drops the cached lock objects that nobody in this process holds and that were last taken {@code age} ms ago or more. */
    @Override
    public void expireUnusedOlderThan(long age) {
        locks.expireUnusedOlderThan(age);
    }

    /**
     * Extends the lease of the hold a thread of this process has of {@code lockKey}'s lock: to the
     * registry's default lease, or the watchdog's (see {@link #renewLock(Object, Duration)}).
     */
    @Override
    public void renewLock(Object lockKey) {
        locks.renewLock(lockKey);
    }

    /**
     * Extends the lease of the hold a thread of this process has of {@code lockKey}'s lock to
     * {@code ttl} (as Spring Integration 7's registries can), in one call that changes nothing on
     * Redis unless that hold is there: never a second hold, never a shorter lease, and a watchdog
     * lease stays renewed.
     *
     * @throws IllegalStateException when no thread of this process holds it, or Redis says it is not held
     */
    public void renewLock(Object lockKey, Duration ttl) {
        locks.renewLock(lockKey, ttl);
    }

    /**
     * A lease of the lock of {@code lockKey} acquired within {@code waitTime}, with this registry's
     * lease: owned by the returned handle rather than a thread, so any thread may release it (a
     * {@code Lock} from {@link #obtain} belongs to the thread that took it). {@link #destroy()}
     * does not wait for leases.
     *
     * @return the lease, or empty when the wait ran out
     */
    public Optional<LockLease> tryAcquireLease(Object lockKey, Duration waitTime) throws InterruptedException {
        return locks.tryAcquireLease(lockKey, waitTime);
    }

    @Override
    public String toString() {
        return "PadlockLockRegistry6{" + locks + '}';
    }

    /** A lock of the registry: the shared {@link RegistryLock}, a plain {@link Lock} to Spring Integration 6.5. */
    private static final class Padlock6Lock extends RegistryLock {
        Padlock6Lock(RegistryLocks<?> registry, String key) {
            super(registry, key);
        }
    }
}
