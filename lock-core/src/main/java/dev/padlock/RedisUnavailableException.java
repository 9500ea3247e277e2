package dev.padlock;

import org.jspecify.annotations.Nullable;

/**
 * Redis could not be reached, or did not answer within the command timeout. The message names
 * the server address and the operation that failed. The lock state on Redis is unknown to the
 * caller: an acquire may or may not have landed (a lease then expires by itself).
 */
public final class RedisUnavailableException extends PadlockException {
    private static final long serialVersionUID = 1L;

    /**
     * An exception with the given message and cause.
     *
     * @param message what failed, naming the operation and the address
     * @param cause the failure from the connection or Redis
     */
    public RedisUnavailableException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
