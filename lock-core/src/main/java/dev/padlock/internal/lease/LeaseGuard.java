package dev.padlock.internal.lease;

import dev.padlock.LeaseLostException;
import dev.padlock.LockLease;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Watches one lease while work runs under it, and stops the work ({@link #stop}) once the lease is
 * lost or could expire within a margin: with renewals coming every third of a watchdog lease,
 * {@code safeFor()} never falls that low while Redis answers; when renewals fail, the work is
 * stopped before the lease can run out. Checks are timed on the JDK's shared delay scheduler, at
 * the moment the margin would be reached, and again after each renewal.
 */
public final class LeaseGuard implements AutoCloseable {
    private final LockLease lease;
    private final long marginNanos;
    private final Runnable stop;
    /** Guarded by this. */
    private @Nullable LeaseLostException lost;
    /** Written under this; read without it by the timed checks, which then stop. */
    private volatile boolean closed;

    /**
     * @param stop what stops the work (an interrupt, a cancel); runs at most once, off the work's
     *     thread, and never after {@link #close()}
     */
    private LeaseGuard(LockLease lease, Runnable stop) {
        this.lease = lease;
        // a tenth of what the fresh lease is safe for, at least 20 ms
        this.marginNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(20), lease.safeFor().toNanos() / 10);
        this.stop = stop;
    }

    /** Starts watching a lease just acquired. */
    public static LeaseGuard watch(LockLease lease, Runnable stop) {
        LeaseGuard guard = new LeaseGuard(lease, stop);
        lease.onLost(() -> guard.fire("was lost: its lock expired, was deleted or was taken"));
        guard.schedule();
        return guard;
    }

    private void schedule() {
        if (closed) {
            return;
        }
        long wait = lease.safeFor().toNanos() - marginNanos;
        if (wait <= 0) {
            fire("could expire within " + TimeUnit.NANOSECONDS.toMillis(marginNanos)
                    + " ms, with no renewal answered by Redis");
            return;
        }
        CompletableFuture.delayedExecutor(wait, TimeUnit.NANOSECONDS).execute(this::schedule);
    }

    private synchronized void fire(String reason) {
        if (!closed && lost == null) {
            lost = new LeaseLostException(lease.lockName(), reason);
            stop.run();
        }
    }

    /** Stops watching, the work having ended; why the work was stopped, null when it was not. */
    public synchronized @Nullable LeaseLostException end() {
        closed = true;
        return lost;
    }

    @Override
    public void close() {
        end();
    }
}
