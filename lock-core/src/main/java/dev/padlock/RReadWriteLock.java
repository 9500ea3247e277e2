package dev.padlock;

/**
 * A pair of reentrant locks on one name: many readers or one writer.
 *
 * <p>The read lock is shared: owners of any client may hold it at once, each with a lease of its
 * own, so one reader's expired lease leaves the others held. The write lock is exclusive and
 * excludes readers. An owner holding the write lock may also take the read lock, and keeps it
 * after unlocking the write lock (a downgrade). A read lock is never upgraded: an owner holding
 * only the read lock that asks for the write lock gets an {@link IllegalMonitorStateException}
 * rather than a wait on itself. Every unlock that frees the lock for someone else wakes all
 * waiters, readers and writers alike.
 */
public interface RReadWriteLock {

    /** The name given to {@link LockClient#getReadWriteLock(String)}; also the Redis key. */
    String getName();

    /** The shared lock. */
    RLock readLock();

    /** The exclusive lock. */
    RLock writeLock();
}
