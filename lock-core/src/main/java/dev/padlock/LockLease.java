package dev.padlock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * One hold of a lock, owned by this handle rather than by a thread: any thread, virtual thread,
 * Reactor chain or coroutine may use and release it. Got from {@link RLock#acquire()},
 * {@link RLock#tryAcquire(Duration)} and their asynchronous twins; every acquire is a new hold
 * (leases are not reentrant).
 *
 * <p>On Redis the lease is an ordinary holder: the field {@code <clientId>:<long>} with a long no
 * thread of the client uses, so Redisson and {@code padlock show} see it as they see any owner.
 * A watchdog lease is renewed until it is released; a fixed lease expires by itself.
 *
 * <pre>{@code
 * try (LockLease lease = lock.acquire()) {
 *     work(lease.safeFor());
 * }
 * }</pre>
 *
 * Instances are thread-safe.
 */
public interface LockLease extends AutoCloseable {

    /** {@return the name of the lock this lease holds} */
    String lockName();

    /**
     * Whether this lease's field is in the lock's hash now. One Redis read.
     *
     * @return whether the lease holds
     */
    boolean isHeld();

    /**
     * How long the lease certainly has before its TTL on Redis can run out: counted from the send
     * of the last request that set that TTL (the acquisition, a grant or a renewal), less a drift
     * margin of 1% of the lease plus 2 ms. {@link Duration#ZERO} once that has passed, or once the
     * lease is known lost or released. Reads no clock but this JVM's, and nothing from Redis.
     *
     * @return the time the lease certainly has left
     */
    Duration safeFor();

    /**
     * Drops the hold; the lock is free for others when no other owner holds it.
     *
     * @throws IllegalMonitorStateException when the lease no longer holds (its lease ran out, the
     *     lock was deleted, or it was released already)
     */
    void release();

    /**
     * As {@link #release()}, without blocking: the future completes exceptionally with
     * {@link IllegalMonitorStateException} when the lease no longer holds.
     *
     * @return a future that completes once Redis confirmed the release
     */
    CompletableFuture<Void> releaseAsync();

    /**
     * Releases the lease the first time it is called; later calls do nothing. A lease that was
     * already lost is not an error here: the loss is logged.
     */
    @Override
    void close();

    /** {@return the fencing token of this acquisition for a lease of an {@link RFencedLock}, else {@code null}} */
    @Nullable Long token();

    /**
     * Makes a fixed lease last at least {@code leaseTime} from now, when it still holds: its TTL on
     * Redis becomes {@code leaseTime} unless it already has more, and is never shortened, for every
     * kind of lock. {@link #safeFor()} then counts from this call's send when that is the later end.
     *
     * @param leaseTime the least time the lease is to have left
     * @return whether the lease still held and was extended
     * @throws IllegalStateException for a watchdog lease, which the watchdog renews
     */
    boolean extend(Duration leaseTime);

    /**
     * Runs {@code action} once, off the caller's thread, when this lease is found lost: by the
     * watchdog (as the {@link LeaseLostListener} is told), or by {@link #isHeld()} answering
     * {@code false} for a lease not released. Added after the loss, it runs at once (still off
     * the caller's thread). A released lease never runs it.
     *
     * @param action what to run on the loss
     */
    void onLost(Runnable action);
}
