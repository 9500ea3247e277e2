package dev.padlock;

/**
 * The lease that work ran under was lost, or could no longer be counted on, before the work
 * ended: its lock may have expired, been deleted or been taken by another owner, so the work did
 * not run alone. Thrown by {@link RLock#withLock} and its asynchronous twin after they stopped the
 * work (an interrupt of the worker thread, a cancel of the work's future).
 */
public class LeaseLostException extends PadlockException {
    private static final long serialVersionUID = 1L;

    private final String lockName;

    public LeaseLostException(String lockName, String reason) {
        super("the lease of lock '" + lockName + "' " + reason);
        this.lockName = lockName;
    }

    /** The lock whose lease was lost. */
    public String lockName() {
        return lockName;
    }
}
