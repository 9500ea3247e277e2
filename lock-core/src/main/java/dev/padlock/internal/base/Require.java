package dev.padlock.internal.base;

import static java.util.Objects.requireNonNull;

import dev.padlock.RLock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Argument and state checks that give messages naming the parameter and the bad value. */
public final class Require {
    private Require() {
    }

    public static void argument(boolean ok, String message, Object... args) {
        if (!ok) {
            throw new IllegalArgumentException(args.length == 0 ? message : String.format(message, args));
        }
    }

    public static void state(boolean ok, String message) {
        if (!ok) {
            throw new IllegalStateException(message);
        }
    }

    /** A lock name: not null, not empty. */
    public static String lockName(String name) {
        requireNonNull(name, "name");
        argument(!name.isEmpty(), "name must not be empty");
        return name;
    }

    /** {@link RLock#MAX_LEASE} in milliseconds. */
    public static final long MAX_LEASE_MILLIS = RLock.MAX_LEASE.toMillis();
    private static final long MAX_LEASE_DAYS = RLock.MAX_LEASE.toDays();

    /**
     * A lease of {@code leaseTime} {@code unit}s: at most {@link RLock#MAX_LEASE} (a lease of zero
     * or less is the watchdog's, and passes). {@code TimeUnit.toMillis} saturates, so a lease in
     * huge units is caught as well.
     */
    public static void leaseTime(long leaseTime, TimeUnit unit) {
        requireNonNull(unit, "unit");
        argument(leaseTime <= 0 || unit.toMillis(leaseTime) <= MAX_LEASE_MILLIS,
                "leaseTime must be at most %d days (%d ms, RLock.MAX_LEASE), was %d %s", MAX_LEASE_DAYS, MAX_LEASE_MILLIS,
                leaseTime, unit);
    }

    /** A lease given as a {@link Duration}: not null, not negative, at most {@link RLock#MAX_LEASE}. */
    public static void leaseTime(Duration leaseTime) {
        requireNonNull(leaseTime, "leaseTime");
        argument(!leaseTime.isNegative(), "leaseTime must not be negative, was %s", leaseTime);
        argument(leaseTime.compareTo(RLock.MAX_LEASE) <= 0,
                "leaseTime must be at most %d days (%d ms, RLock.MAX_LEASE), was %s", MAX_LEASE_DAYS, MAX_LEASE_MILLIS,
                leaseTime);
    }

    /** A wait time: not negative. */
    public static void waitTime(long waitTime) {
        argument(waitTime >= 0, "waitTime must not be negative, was %d", waitTime);
    }
}
