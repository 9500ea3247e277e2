package dev.padlock;

import static java.util.Objects.requireNonNull;

import dev.padlock.internal.PadlockClient;

/**
 * Entry point: a connection to Redis that hands out locks.
 *
 * <pre>{@code
 * try (LockClient client = LockClient.connect("redis://127.0.0.1:6379")) {
 *     RLock lock = client.getLock("orders:42");
 *     lock.lock();
 *     try {
 *         // one holder at a time, across every client of this Redis
 *     } finally {
 *         lock.unlock();
 *     }
 * }
 * }</pre>
 *
 * <p>A client is thread-safe and meant to be shared: one per application and Redis deployment.
 * It owns one command connection, one pub/sub connection and one watchdog timer thread.
 */
public interface LockClient extends AutoCloseable {

    /**
     * Connects with default settings.
     *
     * @throws RedisUnavailableException when the server cannot be reached
     */
    static LockClient connect(String redisUri) {
        requireNonNull(redisUri, "redisUri");
        return create(LockConfig.builder().redisUri(redisUri).build());
    }

    /**
     * Connects with the given settings.
     *
     * @throws RedisUnavailableException when no server can be reached
     */
    static LockClient create(LockConfig config) {
        requireNonNull(config, "config");
        return PadlockClient.open(config);
    }

    /** This client's UUID: the {@code <clientId>} part of every hash field it writes. */
    String getId();

    /**
     * A reentrant, non-fair lock. Cheap: the object holds no state of its own, and two calls with
     * the same name give locks that behave the same.
     *
     * @throws NullPointerException when {@code name} is null
     * @throws IllegalArgumentException when {@code name} is empty
     */
    RLock getLock(String name);

    /**
     * A reentrant, non-fair lock that waits by polling with exponential back-off and jitter
     * instead of pub/sub, for setups where pub/sub is not available (a proxy that does not pass
     * it, an ACL without channel rights). Same format on Redis as {@link #getLock(String)}, so the
     * two exclude each other; a waiter wakes up to 128 ms after an unlock.
     *
     * @throws NullPointerException when {@code name} is null
     * @throws IllegalArgumentException when {@code name} is empty
     */
    RLock getSpinLock(String name);

    /**
     * Stops the watchdog (held locks then expire with their leases), fails pending waits and
     * closes the connections. Idempotent. Locks used after close throw
     * {@link IllegalStateException}.
     */
    @Override
    void close();
}
