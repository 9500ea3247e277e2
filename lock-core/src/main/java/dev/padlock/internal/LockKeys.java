package dev.padlock.internal;

/**
 * Every Redis key and channel name Padlock uses, in Redisson's format. Extra keys of a lock are
 * {@code prefix:{<name>}} (or {@code prefix:<name>} when the name already has a brace) so that
 * they share the lock's Cluster slot.
 */
public final class LockKeys {
    private static final String UNLOCK_CHANNEL_PREFIX = "redisson_lock__channel";

    /** Published on the unlock channel at the final unlock of an exclusive lock. */
    public static final String UNLOCK_MESSAGE = "0";
    /** Published on the unlock channel at the final unlock of a read lock. */
    public static final String READ_UNLOCK_MESSAGE = "1";

    private LockKeys() {
    }

    /** The channel a lock's waiters listen on: {@code redisson_lock__channel:{<name>}}. */
    public static String unlockChannel(String lockName) {
        return suffixed(UNLOCK_CHANNEL_PREFIX, lockName);
    }

    /** The hash field of an owner: {@code <clientId>:<threadId>}. */
    public static String ownerField(String clientId, long threadId) {
        return clientId + ':' + threadId;
    }

    static String suffixed(String prefix, String lockName) {
        return lockName.indexOf('{') >= 0 ? prefix + ':' + lockName : prefix + ":{" + lockName + '}';
    }
}
