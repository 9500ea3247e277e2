package dev.padlock;

import org.jspecify.annotations.Nullable;

/**
 * The root of Padlock's unchecked exceptions: something went wrong talking to Redis.
 *
 * <p>"Not acquired in time" is never an exception (the {@code tryLock} methods return
 * {@code false}); a misuse such as unlocking a lock the caller does not hold is an
 * {@link IllegalMonitorStateException}, as for {@link java.util.concurrent.locks.ReentrantLock}.
 */
public class PadlockException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * An exception with a message alone.
     *
     * @param message what failed
     */
    public PadlockException(String message) {
        super(message);
    }

    /**
     * An exception with a message and a cause.
     *
     * @param message what failed
     * @param cause the underlying failure
     */
    public PadlockException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
