package dev.padlock.cli;

/**
 * What the owner id of an owner field {@code <clientId>:<ownerId>} names. Redisson and Padlock
 * write a thread's id there (positive); a {@code LockLease} ({@code acquire()}, {@code withLock},
 * lock-reactor, lock-kotlin, Spring's leases) is owned by a handle instead, whose id lock-core
 * hands out as -1, -2, ... so that no thread and no other lease shares it.
 */
enum OwnerKind {
    THREAD("thread"),
    LEASE("lease");

    private final String word;

    OwnerKind(String word) {
        this.word = word;
    }

    /** The kind of {@code ownerId}: a lease's when negative, else a thread's. */
    static OwnerKind of(long ownerId) {
        return ownerId < 0 ? LEASE : THREAD;
    }

    /**
     * The kind of the owner in {@code ownerField} ({@code <clientId>:<ownerId>}, without a
     * writer's {@code :write}); null when it has no owner id, so is not an owner field.
     */
    static OwnerKind ofField(String ownerField) {
        int colon = ownerField.lastIndexOf(':');
        if (colon < 0) {
            return null;
        }
        try {
            return of(Long.parseLong(ownerField.substring(colon + 1)));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** The JSON value: {@code thread} or {@code lease}. */
    String json() {
        return word;
    }

    /** The owner in words: {@code thread 57}, {@code lease -1}. */
    String describe(long ownerId) {
        return word + " " + ownerId;
    }
}
