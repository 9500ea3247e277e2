package dev.padlock.internal.base;

import static java.util.Objects.requireNonNull;

import dev.padlock.RLock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/** Argument and state checks that give messages naming the parameter and the bad value. */
public final class Require {
    private Require() {
    }

    public static void argument(boolean ok, String message, Object... args) {
        if (!ok) {
            throw new IllegalArgumentException(args.length == 0 ? message : String.format(message, args));
        }
    }

    /** {@return value} when not null; else {@link IllegalArgumentException} with {@code message} */
    public static <T> T present(@Nullable T value, String message) {
        if (value == null) {
            throw new IllegalArgumentException(message);
        }
        return value;
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

    /**
     * A lease of {@code leaseTime} {@code unit}s: at most {@link RLock#MAX_LEASE} (a lease of zero
     * or less is the watchdog's, and passes). {@code TimeUnit.toMillis} saturates, so a lease in
     * huge units is caught as well.
     */
    public static void leaseTime(long leaseTime, TimeUnit unit) {
        requireNonNull(unit, "unit");
        argument(leaseTime <= 0 || unit.toMillis(leaseTime) <= MAX_LEASE_MILLIS,
                "leaseTime must be at most %d ms (about 24.8 days, RLock.MAX_LEASE), was %d %s; for a longer hold,"
                        + " ask for no lease (0: the watchdog's, renewed while the client lives)",
                MAX_LEASE_MILLIS, leaseTime, unit);
    }

    /** A lease given as a {@link Duration}: not null, not negative, at most {@link RLock#MAX_LEASE}. */
    public static void leaseTime(Duration leaseTime) {
        requireNonNull(leaseTime, "leaseTime");
        argument(!leaseTime.isNegative(), "leaseTime must not be negative, was %s; Duration.ZERO asks for the"
                + " watchdog's lease (only RLock's lock(leaseTime, unit) and tryLock(wait, leaseTime, unit) read a negative"
                + " lease as the watchdog's, as Redisson does)", leaseTime);
        argument(leaseTime.compareTo(RLock.MAX_LEASE) <= 0,
                "leaseTime must be at most %d ms (about 24.8 days, RLock.MAX_LEASE), was %s; for a longer hold,"
                        + " ask for no lease (Duration.ZERO: the watchdog's, renewed while the client lives)",
                MAX_LEASE_MILLIS, leaseTime);
    }

    /** A wait time: not negative. */
    public static void waitTime(long waitTime) {
        argument(waitTime >= 0, "waitTime must not be negative, was %d", waitTime);
    }
}
