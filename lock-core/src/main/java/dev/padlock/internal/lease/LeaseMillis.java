package dev.padlock.internal.lease;

import dev.padlock.internal.base.Require;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The engine's one value for a lease asked for, in milliseconds: a fixed lease of at least 1 ms,
 * never renewed, or {@link #WATCHDOG}, the watchdog's lease (the client's watchdog timeout, renewed
 * while held). The public API spells the watchdog's lease two ways, {@code RLock}'s
 * {@code leaseTime <= 0} and a lease's {@link Duration#ZERO}: both become {@code WATCHDOG} here, at
 * its edge, and nowhere else. The engine hands {@code WATCHDOG} on as it is to any {@code RLock}'s
 * owner-id methods (which read it as the watchdog's, as Redisson does {@code lock(-1, unit)}); a
 * script is given {@link #ttlMillis}, the TTL the lease sets.
 */
public final class LeaseMillis {
    /** The watchdog's lease. */
    public static final long WATCHDOG = -1;

    private LeaseMillis() {
    }

    /** Whether {@code leaseMillis} is the watchdog's lease rather than a fixed one. */
    public static boolean isWatchdog(long leaseMillis) {
        return leaseMillis == WATCHDOG;
    }

    /**
     * The lease {@code RLock}'s {@code leaseTime} in {@code unit} asks for: {@code <= 0} the
     * watchdog's, else at least 1 ms. Checked already ({@link Require#leaseTime(long, TimeUnit)}).
     */
    public static long of(long leaseTime, TimeUnit unit) {
        return leaseTime <= 0 ? WATCHDOG : Math.max(1, unit.toMillis(leaseTime));
    }

    /**
     * The lease a lease's {@code leaseTime} asks for: {@link Duration#ZERO} the watchdog's, else at
     * least 1 ms, at most {@code RLock.MAX_LEASE} (checked here, by
     * {@link Require#leaseTime(Duration)}).
     */
    public static long of(Duration leaseTime) {
        Require.leaseTime(leaseTime);
        return leaseTime.isZero() ? WATCHDOG : Math.max(1, leaseTime.toMillis());
    }

    /** The TTL that {@code leaseMillis} sets on Redis: {@code watchdogMillis} for the watchdog's lease. */
    public static long ttlMillis(long leaseMillis, long watchdogMillis) {
        return isWatchdog(leaseMillis) ? watchdogMillis : leaseMillis;
    }
}
