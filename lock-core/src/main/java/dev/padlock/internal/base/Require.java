package dev.padlock.internal.base;

import static java.util.Objects.requireNonNull;

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

    /** A wait time: not negative. */
    public static void waitTime(long waitTime) {
        argument(waitTime >= 0, "waitTime must not be negative, was %d", waitTime);
    }
}
