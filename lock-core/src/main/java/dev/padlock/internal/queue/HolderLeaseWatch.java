package dev.padlock.internal.queue;

import dev.padlock.internal.base.EngineClock;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Watches the end of a {@link LocalQueue} holder's fixed lease on the client's timer, so that
 * queued owners ask Redis once it has run out; a watchdog lease is renewed and not watched. The
 * end is measured from when this client read Redis's reply, after Redis set the lease, so Redis has
 * dropped the key by then. One check is pending at a time, one millisecond after the end: a lease
 * that ends sooner replaces it, one that ends later is checked again when the check fires. A check
 * stays pending when the holder goes ({@link #noFixedLease()}) and then finds nothing, or serves
 * the next holder's lease: a lock taken and released in a loop schedules one check a lease, not
 * one a hold.
 *
 * <p>Not thread-safe: guarded by its queue's monitor. The check runs {@code onDue} on the timer's
 * thread, which takes the monitor and asks {@link #over()}.
 */
final class HolderLeaseWatch {
    private final Timer timer;
    private final EngineClock clock;
    private final Runnable onDue;
    /** {@link EngineClock#nanoTime()} when the holder's last fixed lease ends; 0 when none is watched. */
    private long leaseEnd;
    private @Nullable Timeout check;
    /** The lease end {@link #check} was scheduled for. */
    private long checkAt;

    HolderLeaseWatch(Timer timer, EngineClock clock, Runnable onDue) {
        this.timer = timer;
        this.clock = clock;
        this.onDue = onDue;
    }

    /** Redis set the holder's lease to {@code leaseMillis}, fixed (not renewed), just now. */
    void fixedLease(long leaseMillis) {
        leaseEnd = clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
        if (check == null || leaseEnd - checkAt < 0) {
            cancel();
            schedule();
        }
    }

    /**
     * Redis raised the same holder's fixed lease to at least {@code leaseMillis}, just now (a
     * re-entry, which never shortens the TTL): the later of the two ends is watched.
     */
    void fixedLeaseAtLeast(long leaseMillis) {
        long end = clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
        if (leaseEnd != 0 && end - leaseEnd < 0) {
            return;
        }
        fixedLease(leaseMillis);
    }

    /**
     * The holder's lease is renewed, or not this client's to watch, or nobody holds: a pending check
     * finds nothing, unless a lease set before it fires moves the end on.
     */
    void noFixedLease() {
        leaseEnd = 0;
    }

    /** Cancels the pending check, if any: the queue closes or retires. */
    void cancel() {
        if (check != null) {
            check.cancel();
            check = null;
        }
    }

    /**
     * The check fired: whether the watched lease is over. When a later lease moved the end on, the
     * next check is scheduled and the answer is false.
     */
    boolean over() {
        check = null;
        if (leaseEnd == 0) {
            return false;
        }
        if (clock.nanoTime() - leaseEnd < 0) {
            schedule(); // a later holder or re-entry set a new lease
            return false;
        }
        return true;
    }

    /** Whether a check is pending; for tests. */
    boolean pending() {
        return check != null;
    }

    private void schedule() {
        long delay = Math.max(0, leaseEnd - clock.nanoTime()) + TimeUnit.MILLISECONDS.toNanos(1);
        checkAt = leaseEnd;
        check = timer.newTimeout(timeout -> onDue.run(), delay, TimeUnit.NANOSECONDS);
    }
}
