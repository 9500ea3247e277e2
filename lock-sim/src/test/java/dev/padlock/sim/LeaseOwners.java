package dev.padlock.sim;

import dev.padlock.internal.lease.LeaseClocks;
import java.lang.reflect.Field;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The engine's lease owner ids ({@link LeaseClocks#newOwner}), which come from one counter per
 * JVM: each episode starts it again, so that a seed's leases get the same ids (and the engine's
 * maps keyed by owner the same order) every run. Episodes run one at a time, each with clients of
 * its own, so no two live leases share an id.
 */
final class LeaseOwners {
    private static final AtomicLong LAST = lastOwner();

    private LeaseOwners() {
    }

    /** Starts the ids again, for a new episode. */
    static void restart() {
        LAST.set(0);
    }

    /** The id of the lease acquisition started last: read right after the call that started it. */
    static long last() {
        return LAST.get();
    }

    private static AtomicLong lastOwner() {
        try {
            Field field = LeaseClocks.class.getDeclaredField("LAST_OWNER");
            field.setAccessible(true);
            return (AtomicLong) field.get(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("LeaseClocks hands out lease owner ids no longer from LAST_OWNER", e);
        }
    }
}
