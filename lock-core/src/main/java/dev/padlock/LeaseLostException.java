package dev.padlock;

/**
 * The lease that work ran under was lost, or could no longer be counted on, before the work
 * ended: its lock may have expired, been deleted or been taken by another owner, so the work did
 * not run alone. Thrown by {@link RLock#withLock} and its asynchronous twin after they stopped the
 * work (an interrupt of the worker thread, a cancel of the work's future).
 */
public class LeaseLostException extends PadlockException {
    private static final long serialVersionUID = 1L;

    /** The lock whose lease was lost. */
    private final String lockName;

    /**
     * An exception whose message is "the lease of lock '{@code lockName}' " and {@code reason}.
     *
     * @param lockName the lock whose lease was lost
     * @param reason the rest of the message, after "the lease of lock 'name' "
     */
    public LeaseLostException(String lockName, String reason) {
        super("the lease of lock '" + lockName + "' " + reason);
        this.lockName = lockName;
    }

    /**
     * The lock whose lease was lost.
     *
     * @return the lock's name
     */
    public String lockName() {
        return lockName;
    }
}
