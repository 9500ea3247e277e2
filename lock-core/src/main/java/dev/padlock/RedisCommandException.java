package dev.padlock;

/**
 * Redis answered an operation with an error, for example {@code WRONGTYPE} when the lock's key
 * holds something other than a lock hash, or {@code BUSY} when a script is running too long. The
 * message names the server address, the operation and Redis's error.
 */
public final class RedisCommandException extends PadlockException {
    private static final long serialVersionUID = 1L;

    /**
     * An exception with the given message and cause.
     *
     * @param message what failed, naming the operation and the address
     * @param cause the failure from the connection or Redis
     */
    public RedisCommandException(String message, Throwable cause) {
        super(message, cause);
    }
}
