package dev.padlock.internal.lease;

import dev.padlock.LockLease;
import dev.padlock.RLock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link LockLease}: the owner id {@link #owner} of {@link #lock}, used through the lock's
 * owner-id methods, and the {@link LeaseClock} that says how long it is safe.
 */
final class HandleLease implements LockLease {
    private static final Logger log = LoggerFactory.getLogger(HandleLease.class);
    private final RLock lock;
    private final long owner;
    /** The lease asked for: fixed, or {@link LeaseMillis#WATCHDOG}. */
    private final long leaseMillis;
    private final @Nullable Long token;
    private final LeaseClock clock;
    /** Closes the lease's clock where it was opened: see {@link LeaseAcquisition#acquire}. */
    private final Runnable closeClock;
    /** Whether a release was sent (by {@link #release}, {@link #releaseAsync} or {@link #close}). */
    private final AtomicBoolean released = new AtomicBoolean();

    HandleLease(RLock lock, long owner, long leaseMillis, @Nullable Long token, LeaseClock clock, Runnable closeClock) {
        this.closeClock = closeClock;
        this.lock = lock;
        this.owner = owner;
        this.leaseMillis = leaseMillis;
        this.token = token;
        this.clock = clock;
    }

    @Override
    public String lockName() {
        return lock.getName();
    }

    @Override
    public boolean isHeld() {
        boolean held = lock.isHeldByThread(owner);
        if (!held) {
            clock.lost();
        }
        return held;
    }

    @Override
    public Duration safeFor() {
        return Duration.ofNanos(clock.safeForNanos());
    }

    @Override
    public void release() {
        LeaseAcquisition.join(releaseAsync(), "release of a lease of '" + lockName() + "'");
    }

    @Override
    public CompletableFuture<Void> releaseAsync() {
        released.set(true);
        closeClock.run(); // from now on nothing is certain: the release may land at once
        return lock.unlockAsync(owner);
    }

    @Override
    public void close() {
        if (released.getAndSet(true)) {
            return; // released already: nothing to send, and no loss to report
        }
        try {
            release();
        } catch (IllegalMonitorStateException e) {
            log.warn("lease of lock '{}' was already lost when closed: {}", lockName(), e.getMessage());
        }
    }

    @Override
    public @Nullable Long token() {
        return token;
    }

    @Override
    public boolean extend(Duration leaseTime) {
        long extension = LeaseMillis.of(leaseTime);
        if (LeaseMillis.isWatchdog(leaseMillis)) {
            throw new IllegalStateException("a watchdog lease of '" + lockName() + "' is renewed by the watchdog");
        }
        if (LeaseMillis.isWatchdog(extension)) {
            throw new IllegalArgumentException("leaseTime must be positive, was " + leaseTime);
        }
        if (!(lock instanceof LeaseExtending extending)) {
            throw new UnsupportedOperationException("a lease of " + lock + " cannot be extended");
        }
        boolean extended = LeaseAcquisition.join(extending.extendLeaseAsync(extension, owner),
                "extension of a lease of '" + lockName() + "'");
        if (!extended) {
            clock.lost();
        }
        return extended;
    }

    @Override
    public void onLost(Runnable action) {
        clock.onLost(Objects.requireNonNull(action, "action"));
    }

    @Override
    public String toString() {
        return "LockLease{" + lockName() + " by owner " + owner + "}";
    }
}
