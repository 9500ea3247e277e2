package dev.padlock.sim;

/** The lock kinds a simulation drives, each on a name of its own; read and write share one. */
enum Kind {
    PLAIN, SPIN, FENCED, FAIR, READ, WRITE;

    String lockName() {
        return switch (this) {
            case PLAIN -> SimConfig.PLAIN;
            case SPIN -> SimConfig.SPIN;
            case FENCED -> SimConfig.FENCED;
            case FAIR -> SimConfig.FAIR;
            case READ, WRITE -> SimConfig.READ_WRITE;
        };
    }

    /** The owner's field in the lock hash: Redisson's format. */
    String field(String clientId, long owner) {
        return this == WRITE ? clientId + ':' + owner + ":write" : clientId + ':' + owner;
    }

    /** Whether a re-entry re-arms the lock's lease to the new one, as Redisson's plain and fair locks do. */
    boolean rearms() {
        return this != READ && this != WRITE;
    }

    /** Whether a holder of this kind excludes every other owner of the name. */
    boolean exclusive() {
        return this != READ;
    }
}
