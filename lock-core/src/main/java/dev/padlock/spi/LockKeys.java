package dev.padlock.spi;

/**
 * Every Redis key and channel name Padlock uses, in Redisson's format. Extra keys of a lock are
 * {@code prefix:{<name>}} (or {@code prefix:<name>} when the name already has a brace) so that
 * they share the lock's Cluster slot.
 */
public final class LockKeys {
    private static final String UNLOCK_CHANNEL_PREFIX = "redisson_lock__channel";
    private static final String SEMAPHORE_CHANNEL_PREFIX = "redisson_sc";

    /** Published on the unlock channel at the final unlock of an exclusive lock. */
    public static final String UNLOCK_MESSAGE = "0";
    /**
     * Published on a read-write lock's channel at every unlock that lets someone in (a read or
     * a write unlock): it wakes every waiter, since several readers may go at once.
     */
    public static final String READ_UNLOCK_MESSAGE = "1";

    private LockKeys() {
    }

    /**
     * The channel a lock's waiters listen on: {@code redisson_lock__channel:{<name>}}.
     *
     * @param lockName the lock's name
     * @return the channel
     */
    public static String unlockChannel(String lockName) {
        return suffixed(UNLOCK_CHANNEL_PREFIX, lockName);
    }

    /**
     * The channel a semaphore's waiters listen on: {@code redisson_sc:{<name>}} (Redisson's
     * {@code RSemaphore} format); each release publishes the number of free permits on it.
     *
     * @param semaphoreName the semaphore's name
     * @return the channel
     */
    public static String semaphoreChannel(String semaphoreName) {
        return suffixed(SEMAPHORE_CHANNEL_PREFIX, semaphoreName);
    }

    /**
     * Whether {@code channel} is a semaphore's ({@link #semaphoreChannel}).
     *
     * @param channel a channel name
     * @return whether it is a semaphore's channel
     */
    public static boolean isSemaphoreChannel(String channel) {
        return channel.startsWith(SEMAPHORE_CHANNEL_PREFIX + ":");
    }

    /**
     * A permit-expirable semaphore's leases: {@code {<name>}:timeout} ({@code <name>:timeout} when
     * the name has a brace; Redisson's {@code RPermitExpirableSemaphore} format), a sorted set of
     * permit ids scored by the epoch ms their lease ends.
     *
     * @param semaphoreName the semaphore's name
     * @return the key
     */
    public static String permitLeases(String semaphoreName) {
        return readLeaseBase(semaphoreName) + ":timeout";
    }

    /**
     * A fair lock's line: {@code padlock_fair_queue:{<name>}}, a list of places, first come first,
     * each {@code <clientId>:<threadId>:<lease ms>:<nonce>}. Padlock's own.
     *
     * @param lockName the lock's name
     * @return the key
     */
    public static String fairQueue(String lockName) {
        return suffixed("padlock_fair_queue", lockName);
    }

    /**
     * Redisson's fair queue: {@code redisson_lock_queue:{<name>}}, a list of the fields of
     * Redisson's fair waiters, first come first; each listens on the unlock channel followed by
     * {@code :<its field>}. Padlock only reads it, to wake the first of them.
     *
     * @param lockName the lock's name
     * @return the key
     */
    public static String redissonFairQueue(String lockName) {
        return suffixed("redisson_lock_queue", lockName);
    }

    /**
     * Redisson's fair waiters' deadlines: {@code redisson_lock_timeout:{<name>}}, a zset of field to
     * the epoch milliseconds after which Redisson counts that waiter as gone. Padlock only reads it.
     *
     * @param lockName the lock's name
     * @return the key
     */
    public static String redissonFairDeadlines(String lockName) {
        return suffixed("redisson_lock_timeout", lockName);
    }

    /**
     * A fenced lock's token counter: {@code redisson_lock_token:{<name>}}.
     *
     * @param lockName the lock's name
     * @return the key
     */
    public static String fencingTokens(String lockName) {
        return suffixed("redisson_lock_token", lockName);
    }

    /**
     * When each current holder got the lock: {@code padlock_since:{<name>}}, a hash of owner
     * field to epoch milliseconds (Redis {@code TIME}), written by the script call that gives an
     * owner a new hold and expiring with the lock. Padlock's own: Redisson's holders have none.
     *
     * @param lockName the lock's name
     * @return the key
     */
    public static String since(String lockName) {
        return suffixed("padlock_since", lockName);
    }

    /**
     * The line of clients waiting for an exclusive lock: {@code padlock_queue:{<name>}}, a list of
     * client ids, oldest first, each with a place ({@link #waiterPlacePrefix}). Padlock's own.
     *
     * @param lockName the lock's name
     * @return the key
     */
    public static String waiterQueue(String lockName) {
        return suffixed("padlock_queue", lockName);
    }

    /**
     * The prefix of a client's place in a lock's line: {@code padlock_waiter:{<name>}:}, followed by
     * the client id; the place is {@code <threadId>:<lease ms>:<nonce>}, with a TTL its client refreshes.
     *
     * @param lockName the lock's name
     * @return the prefix of the key
     */
    public static String waiterPlacePrefix(String lockName) {
        return suffixed("padlock_waiter", lockName) + ':';
    }

    /**
     * The prefix of a client's grant channel for a lock: {@code padlock_grant:{<name>}:}, followed
     * by the client id. A release that passes the lock to that client publishes
     * {@code <threadId>:<nonce>:<name>} there, or {@code f:<threadId>:<nonce>:<name>} for a fair lock.
     *
     * @param lockName the lock's name
     * @return the prefix of the channel
     */
    public static String grantChannelPrefix(String lockName) {
        return suffixed("padlock_grant", lockName) + ':';
    }

    /**
     * Whether {@code channel} is a grant channel ({@link #grantChannelPrefix}).
     *
     * @param channel a channel name
     * @return whether it is a grant channel
     */
    public static boolean isGrantChannel(String channel) {
        return channel.startsWith("padlock_grant:");
    }

    /** The prefix of every client registry entry: {@code padlock_client:}. */
    public static final String CLIENT_PREFIX = "padlock_client:";

    /**
     * Client {@code clientId}'s registry entry: {@code padlock_client:<clientId>}, a hash of who the
     * client is, with a TTL its client refreshes (see {@code ClientRegistration}).
     *
     * @param clientId the client's id, {@link dev.padlock.LockClient#getId()}
     * @return the key
     */
    public static String client(String clientId) {
        return CLIENT_PREFIX + clientId;
    }

    /**
     * A read-write lock's channel: {@code redisson_rwlock:{<name>}}.
     *
     * @param lockName the lock's name
     * @return the channel
     */
    public static String readWriteChannel(String lockName) {
        return suffixed("redisson_rwlock", lockName);
    }

    /**
     * The base of a read-write lock's reader lease keys: {@code {<name>}}, or the name itself when
     * it has a brace. Reader {@code f}'s hold {@code n} has the key {@code <base>:f:rwlock_timeout:n}.
     *
     * @param lockName the lock's name
     * @return the base
     */
    public static String readLeaseBase(String lockName) {
        return lockName.indexOf('{') >= 0 ? lockName : '{' + lockName + '}';
    }

    /**
     * One reader's lease prefix: {@code {<name>}:<readerField>:rwlock_timeout}.
     *
     * @param lockName the lock's name
     * @param readerField the reader's owner field
     * @return the prefix
     */
    public static String readLeasePrefix(String lockName, String readerField) {
        return readLeaseBase(lockName) + ':' + readerField + ":rwlock_timeout";
    }

    /**
     * The hash field of an owner: {@code <clientId>:<threadId>}.
     *
     * @param clientId the client's id
     * @param threadId the owner id
     * @return the field
     */
    public static String ownerField(String clientId, long threadId) {
        return clientId + ':' + threadId;
    }

    static String suffixed(String prefix, String lockName) {
        return lockName.indexOf('{') >= 0 ? prefix + ':' + lockName : prefix + ":{" + lockName + '}';
    }
    /**
     * A read-write lock's line of waiting writers: {@code padlock_rw_queue:{<name>}}, a list of
     * writer fields, first come first. Padlock's own.
     *
     * @param lockName the lock's name
     * @return the key
     */
    public static String readWriteLine(String lockName) {
        return suffixed("padlock_rw_queue", lockName);
    }

    /**
     * The deadlines of a read-write lock's waiting writers: {@code padlock_rw_deadlines:{<name>}}, a
     * zset of writer field to the epoch ms (Redis time) after which it counts as gone. Padlock's own.
     *
     * @param lockName the lock's name
     * @return the key
     */
    public static String readWriteDeadlines(String lockName) {
        return suffixed("padlock_rw_deadlines", lockName);
    }

    /**
     * A read-write lock's gate: {@code padlock_rw_gate:{<name>}}, present while writers wait in line:
     * new readers yield to them, except in the readers' turn ({@link #readWriteTurn}). Padlock's own.
     *
     * @param lockName the lock's name
     * @return the key
     */
    public static String readWriteGate(String lockName) {
        return suffixed("padlock_rw_gate", lockName);
    }

    /**
     * A read-write lock's readers' turn: {@code padlock_rw_turn:{<name>}}, present for a short while
     * after a write release that granted waiting readers: new readers join them despite the gate,
     * and writers wait for its end. Padlock's own.
     *
     * @param lockName the lock's name
     * @return the key
     */
    public static String readWriteTurn(String lockName) {
        return suffixed("padlock_rw_turn", lockName);
    }

    /**
     * A read-write lock's readers' hall: {@code padlock_rw_readers:{<name>}}, a hash of the readers
     * that wait for the lock, reader field to {@code <lease ms>:<nonce>}, granted by the next
     * write release. Padlock's own.
     *
     * @param lockName the lock's name
     * @return the key
     */
    public static String readWriteReaders(String lockName) {
        return suffixed("padlock_rw_readers", lockName);
    }

    /**
     * The channel writer {@code writerField} of a read-write lock waits on: {@code redisson_rwlock:{<name>}:<writerField>}.
     *
     * @param lockName the lock's name
     * @param writerField the writer's owner field
     * @return the channel
     */
    public static String readWriteWriterChannel(String lockName, String writerField) {
        return readWriteChannel(lockName) + ':' + writerField;
    }
}
