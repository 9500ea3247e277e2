package dev.padlock.internal.acquire;

/**
 * How many holds an owner has of a lock besides a re-entry whose reply was lost, as far as its
 * client knows: a re-entry landed when Redis counts more (see {@link LockAcquisition#confirmsReentryBy}).
 * Asked when the answer is needed, not when the re-entry was sent: holds confirmed or released
 * since are counted.
 */
@FunctionalInterface
public interface HeldBefore {
    /**
     * Not known: the owner holds through a kind whose holds this client does not count, or another
     * acquisition of it is in flight; its field is asked for then, as before counts were kept.
     */
    int UNKNOWN = -1;
    /** Not yet: a release of the owner is in flight and could move the count. */
    int NOT_YET = -2;

    /** The count, {@link #UNKNOWN} or {@link #NOT_YET}. */
    int count();

    /** Two counts of holds added up; the first that is not a count when one is not. */
    static int sum(int one, int other) {
        return one < 0 ? one : other < 0 ? other : one + other;
    }
}
