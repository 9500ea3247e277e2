package dev.padlock.spring.boot.health;

import dev.padlock.LockObserver;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts, since the application started, the leases the watchdog found lost and its renewal calls
 * that failed; a {@link LockObserver} of the auto-configured client, read by
 * {@link PadlockHealthCheck}, which both lines' health indicators ask.
 */
public final class PadlockLeaseStats implements LockObserver {
    private final AtomicLong lost = new AtomicLong();
    private final AtomicLong renewalErrors = new AtomicLong();
    private final AtomicLong renewals = new AtomicLong();

    @Override
    public void leasesRenewed(int owners, RenewalOutcome outcome) {
        switch (outcome) {
            case RENEWED -> renewals.addAndGet(owners);
            case ERROR -> renewalErrors.incrementAndGet();
            case LOST -> { }
            default -> throw new IllegalStateException("unknown renewal outcome " + outcome);
        }
    }

    @Override
    public void leaseLost(String lockName, Kind kind, long threadId, Object holdContext) {
        lost.incrementAndGet();
    }

    /** Leases found lost since start. */
    public long leasesLost() {
        return lost.get();
    }

    /** Renewal calls that failed since start. */
    public long renewalErrors() {
        return renewalErrors.get();
    }

    /** Owner leases renewed since start. */
    public long leasesRenewed() {
        return renewals.get();
    }
}
