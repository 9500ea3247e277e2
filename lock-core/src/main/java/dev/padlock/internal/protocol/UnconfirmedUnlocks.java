package dev.padlock.internal.protocol;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

/**
 * The owners of one client whose unlock of their last hold of a lock could not be confirmed (its
 * reply was lost; an unlock of one hold of several is settled by the hold count instead), or
 * who were told they lost it (a loss on silence may leave their count on Redis): whatever is left
 * on Redis is no hold of theirs, since the engine stopped counting and renewing it. Their next acquisition of the lock therefore starts a new hold count of 1 (a claim)
 * instead of adding to the leftover; once they hold again, they count as usual.
 *
 * <p>For the kinds that keep no local view of their holders (the fair lock and both sides of the
 * read-write lock); the plain, spin and fenced locks claim every first hold anyway. At most
 * {@value #MAX_OWNERS} owners are remembered: past that the oldest is forgotten, and its next
 * acquisition counts as it did before this class. Thread-safe.
 */
public final class UnconfirmedUnlocks {
    static final int MAX_OWNERS = 10_000;

    private record Owner(String localKey, long owner) {
    }

    private final Cache<Owner, Boolean> owners = Caffeine.newBuilder().maximumSize(MAX_OWNERS).build();

    /** {@code owner}'s unlock of the lock {@code localKey} could not be confirmed. */
    public void unconfirmed(String localKey, long owner) {
        owners.put(new Owner(localKey, owner), Boolean.TRUE);
    }

    /** Whether {@code owner}'s next acquisition of {@code localKey} starts a new hold count. */
    public boolean startsNewCount(String localKey, long owner) {
        return owners.getIfPresent(new Owner(localKey, owner)) != null;
    }

    /** {@code owner} holds {@code localKey} again, told so by Redis: its acquisitions count as usual. */
    public void held(String localKey, long owner) {
        if (owners.estimatedSize() > 0) {
            owners.invalidate(new Owner(localKey, owner));
        }
    }
}
