package dev.padlock.bench;

/**
 * The lock kinds of the lock-family scenarios (7a-7i), each the same call in both libraries:
 * {@code getLock}, {@code getFairLock}, {@code getReadWriteLock(name).readLock()} and
 * {@code .writeLock()}, {@code getFencedLock} (acquired with a token), {@code getSpinLock}, and
 * {@code getMultiLock} and {@code getRedLock} over {@value #COMPOSITE_SIZE} plain locks.
 */
enum LockKind {
    LOCK("getLock", 1),
    FAIR("getFairLock", 1),
    READ("getReadWriteLock().readLock()", 1),
    WRITE("getReadWriteLock().writeLock()", 1),
    FENCED("getFencedLock, lockAndGetToken", 1),
    SPIN("getSpinLock", 1),
    MULTI("getMultiLock over " + LockKind.COMPOSITE_SIZE + " locks", LockKind.COMPOSITE_SIZE),
    RED("getRedLock over " + LockKind.COMPOSITE_SIZE + " locks", LockKind.COMPOSITE_SIZE);

    /** How many plain locks a multi lock or a red lock is made of. */
    static final int COMPOSITE_SIZE = 3;

    private final String call;
    private final int locks;

    LockKind(String call, int locks) {
        this.call = call;
        this.locks = locks;
    }

    /** The library call that makes the lock, e.g. {@code getFairLock}. */
    String call() {
        return call;
    }

    /** How many lock names the kind takes: {@link #COMPOSITE_SIZE} for multi and red, else 1. */
    int locks() {
        return locks;
    }
}
