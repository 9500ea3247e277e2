package dev.padlock;

/**
 * Redis answered an operation with an error, for example {@code WRONGTYPE} when the lock's key
 * holds something other than a lock hash, or {@code BUSY} when a script is running too long. The
 * message names the server address, the operation and Redis's error.
 */
public final class RedisCommandException extends PadlockException {
    private static final long serialVersionUID = 1L;

    public RedisCommandException(String message, Throwable cause) {
        super(message, cause);
    }
}
