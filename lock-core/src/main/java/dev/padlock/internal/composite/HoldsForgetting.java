package dev.padlock.internal.composite;

/**
 * A component lock whose owner's holds this client can take as nothing, as it does itself after an
 * unlock it could not confirm. A multi lock whose unlock could not be confirmed on one component
 * tells its other components so: its caller was told the unlock's outcome is unknown and unlocks no
 * more, so nothing of that owner may be renewed there either.
 */
public interface HoldsForgetting {

    /**
     * Takes {@code threadId} as holding nothing of this lock, unless this client counts holds it
     * was told of (an outer hold, which it unlocks itself): its renewal ends, and its next
     * acquisition starts a new hold count. What Redis still has ends with its lease.
     */
    void forgetHolds(long threadId);

    /**
     * Whether this client counts holds of {@code threadId} on this lock that it was told of: its
     * next acquisition then re-enters, adding one to the owner's count on Redis, rather than
     * starting the count afresh.
     */
    boolean countsHolds(long threadId);
}
