package dev.padlock.sim;

import java.util.List;

/**
 * The lock kinds a simulation drives, each on a name of its own; read and write share one. The
 * multi lock (over the plain and the fair lock, which owners also take alone) and the red lock
 * (three plain locks of its own, on the one model server) and the multi lock of plain locks
 * ({@code BATCH}: the plain lock and one of its own, which takes the one-call path) are composites:
 * their name is the
 * simulation's own, their components' names are keys.
 */
enum Kind {
    PLAIN, SPIN, FENCED, FAIR, READ, WRITE, MULTI, RED, BATCH;

    String lockName() {
        return switch (this) {
            case PLAIN -> SimConfig.PLAIN;
            case SPIN -> SimConfig.SPIN;
            case FENCED -> SimConfig.FENCED;
            case FAIR -> SimConfig.FAIR;
            case READ, WRITE -> SimConfig.READ_WRITE;
            case MULTI -> SimConfig.MULTI;
            case RED -> SimConfig.RED;
            case BATCH -> SimConfig.BATCH;
        };
    }

    /** The lock hashes on Redis that hold it: the components of a composite, else its own name. */
    List<String> keys() {
        return switch (this) {
            case MULTI -> SimConfig.MULTI_COMPONENTS;
            case RED -> SimConfig.RED_COMPONENTS;
            case BATCH -> SimConfig.BATCH_COMPONENTS;
            default -> List.of(lockName());
        };
    }

    /** How many of its {@link #keys} must hold an owner's field for the owner to hold it. */
    int quorum() {
        return this == RED ? keys().size() / 2 + 1 : keys().size();
    }

    /** The owner's field in the lock hash (each component's, for a composite): Redisson's format. */
    String field(String clientId, long owner) {
        return this == WRITE ? clientId + ':' + owner + ":write" : clientId + ':' + owner;
    }

    /**
     * Whether a re-entry re-arms the lock's lease to the new one, as Redisson's plain and fair locks
     * do (and so each component of a composite, all plain-format locks).
     */
    boolean rearms() {
        return this != READ && this != WRITE;
    }

    /** Whether a holder of this kind excludes every other owner of the name. */
    boolean exclusive() {
        return this != READ;
    }
}
