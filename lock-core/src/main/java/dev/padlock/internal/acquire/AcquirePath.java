package dev.padlock.internal.acquire;

import dev.padlock.internal.lease.LeaseMillis;
import dev.padlock.internal.protocol.LockProtocol.ReleaseOutcome;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * How one lock object's acquisitions and releases reach Redis, chosen once, as the lock object is
 * made, from what its kind can do: queued (this client's local queue of the name, for the plain,
 * spin and fenced locks), granted (a line on Redis that a release grants from, for the fair, read
 * and write locks) or direct (the wait loop alone, for a kind that can take neither). Composite
 * locks have their own types.
 */
public interface AcquirePath {
    /**
     * Starts an acquisition by {@code owner}.
     *
     * @param leaseMillis the lease it asks for: fixed, or {@link LeaseMillis#WATCHDOG}
     * @param waitNanos how long it may wait: 0 one attempt, {@link LockAcquisition#FOREVER} without bound
     */
    PendingAcquire acquire(long owner, long leaseMillis, long waitNanos);

    /** Releases one hold of {@code owner}, with the bookkeeping its path keeps. */
    CompletableFuture<ReleaseOutcome> release(long owner);

    /** Whether this client counts holds of {@code owner} on the lock (told, not yet unlocked). */
    boolean counts(long owner);

    /**
     * Sends a force unlock by {@code send}, and takes in what its answer means for this path's
     * local state before the returned future completes.
     */
    default CompletableFuture<Boolean> forceUnlock(Supplier<CompletableFuture<Boolean>> send) {
        return send.get();
    }
}
