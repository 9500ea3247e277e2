package dev.padlock.spring;

import dev.padlock.PadlockException;

/**
 * A {@link Locked} method's lock was not acquired in time (or the wait was interrupted), so the
 * method did not run. The message names the lock and the wait.
 */
public class LockNotAcquiredException extends PadlockException {
    private static final long serialVersionUID = 1L;

    private final String lockName;

    /**
     * @param lockName the lock's name
     * @param message what happened, naming the lock
     * @param cause the {@link InterruptedException} of an interrupted wait, or null
     */
    public LockNotAcquiredException(String lockName, String message, Throwable cause) {
        super(message, cause);
        this.lockName = lockName;
    }

    /** {@return the name of the lock that was not acquired} */
    public String lockName() {
        return lockName;
    }
}
