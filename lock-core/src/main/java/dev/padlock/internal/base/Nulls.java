package dev.padlock.internal.base;

import org.jspecify.annotations.Nullable;

/**
 * The one way to tell NullAway (lock-core's null check at compile time) that a value it sees as
 * nullable is not null at this point, by an invariant it cannot follow: a field set once before the
 * object is shared, a state that implies it, a check on another variable. The pom names this method
 * as NullAway's cast, so a cast that is not needed is reported too. It checks nothing at run time;
 * a comment at the call says which invariant holds.
 */
public final class Nulls {
    private Nulls() {
    }

    /** {@return value}, which an invariant the checker cannot see keeps non-null here */
    @SuppressWarnings("NullAway") // the cast itself
    public static <T> T castToNonNull(@Nullable T value) {
        return value;
    }
}
