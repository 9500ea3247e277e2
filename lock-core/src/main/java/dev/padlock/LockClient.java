package dev.padlock;

import static java.util.Objects.requireNonNull;

import dev.padlock.internal.DeferredClient;
import dev.padlock.internal.PadlockClient;
import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.base.LoggingCheck;

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
     * @param redisUri the server, as {@link LockConfig.Builder#redisUri(String)} takes it
     * @return a connected client, to be closed
     * @throws RedisUnavailableException when the client cannot connect; the message's first line
     *     names the operation, the address and what failed first (authentication, database
     *     selection, the trust store, which TLS check, or the address itself)
     */
    static LockClient connect(String redisUri) {
        requireNonNull(redisUri, "redisUri");
        return create(LockConfig.builder().redisUri(redisUri).build());
    }

    /**
     * Connects with the given settings.
     *
     * <p>Padlock logs through SLF4J. When no SLF4J provider is on the class path, its warnings
     * (a lease lost, renewals failing) would go nowhere: the first client of the JVM then says so,
     * in one line on standard error.
     *
     * @param config the settings
     * @return a connected client, to be closed (with {@link LockConfig.Builder#startWithoutRedis}
     *     set, one that connects in the background)
     * @throws RedisUnavailableException when the client cannot connect to any server; the
     *     message's first line says what failed first, as for {@link #connect(String)}
     */
    static LockClient create(LockConfig config) {
        requireNonNull(config, "config");
        LoggingCheck.warnOnceWithoutProvider();
        return config.startWithoutRedis() ? DeferredClient.start(config, EngineClock.SYSTEM) : PadlockClient.open(config);
    }

    /**
     * This client's UUID: the {@code <clientId>} part of every hash field it writes.
     *
     * @return the client's id
     */
    String getId();

    /**
     * A reentrant, non-fair lock. Cheap: the object holds no state of its own, and two calls with
     * the same name give locks that behave the same.
     *
     * @param name the lock's name, which is also its Redis key
     * @return the lock
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
     * @param name the lock's name, which is also its Redis key
     * @return the lock
     * @throws NullPointerException when {@code name} is null
     * @throws IllegalArgumentException when {@code name} is empty
     */
    RLock getSpinLock(String name);

    /**
     * A reentrant lock granted first come, first served across the threads of every client. The
     * final unlock passes the lock to the next waiter in line in the same Redis call and tells only
     * that waiter's client. A waiter that gives up leaves the line at once; one whose client is
     * gone is passed over, and one whose client stopped acting holds a grant no longer than two
     * command timeouts (at least 1 s).
     *
     * @param name the lock's name, which is also its Redis key
     * @return the lock
     * @throws NullPointerException when {@code name} is null
     * @throws IllegalArgumentException when {@code name} is empty
     */
    RLock getFairLock(String name);

    /**
     * A read-write lock: many readers or one writer, both reentrant.
     *
     * @param name the lock's name, which is also its Redis key
     * @return the read-write lock
     * @throws NullPointerException when {@code name} is null
     * @throws IllegalArgumentException when {@code name} is empty
     */
    RReadWriteLock getReadWriteLock(String name);

    /**
     * A reentrant lock whose acquisitions return fencing tokens; same format on Redis as
     * {@link #getLock(String)}, plus the token counter.
     *
     * @param name the lock's name, which is also its Redis key
     * @return the lock
     * @throws NullPointerException when {@code name} is null
     * @throws IllegalArgumentException when {@code name} is empty
     */
    RFencedLock getFencedLock(String name);

    /**
     * A lock held only when all of {@code locks} are held: they are taken in one fixed order
     * (by name), so two multi locks over the same names cannot deadlock, and a partial
     * acquisition is rolled back. The locks may come from any client.
     *
     * @param locks the locks to hold together
     * @return a lock over all of them
     * @throws NullPointerException when {@code locks} or one of them is null
     * @throws IllegalArgumentException when {@code locks} is empty or names one lock twice
     */
    RLock getMultiLock(RLock... locks);

    /**
     * The Redlock algorithm over locks on independent Redis servers (each from its own client):
     * held when a majority was acquired within the validity time (lease minus the time taken
     * minus clock drift), and released everywhere otherwise.
     *
     * @param locks the locks, one a server
     * @return a lock held on a majority of them
     * @throws NullPointerException when {@code locks} or one of them is null
     * @throws IllegalArgumentException when {@code locks} is empty or names one lock object twice
     */
    RLock getRedLock(RLock... locks);

    /**
     * A counting semaphore, in Redisson's {@code RSemaphore} format: a Redisson {@code RSemaphore}
     * of the same name shares its permits. No Redis call.
     *
     * @param name the semaphore's name: its Redis key
     * @return the semaphore
     * @throws IllegalArgumentException when {@code name} is empty
     */
    RSemaphore getSemaphore(String name);

    /**
     * A semaphore whose permits are leases, in Redisson's {@code RPermitExpirableSemaphore}
     * format: a holder that dies gives its permit back when its lease ends. No Redis call.
     *
     * @param name the semaphore's name: the key of its free permits
     * @return the semaphore
     * @throws IllegalArgumentException when {@code name} is empty
     */
    RPermitExpirableSemaphore getPermitExpirableSemaphore(String name);

    /**
     * Stops the watchdog (held locks then expire with their leases), fails pending waits and
     * closes the connections. Idempotent. Locks used after close throw
     * {@link IllegalStateException}.
     */
    @Override
    void close();
}
