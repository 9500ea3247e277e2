package dev.padlock;

/**
 * A pair of reentrant locks on one name: many readers or one writer.
 *
 * <p>The read lock is shared: owners of any client may hold it at once, each with a lease of its
 * own, so one reader's expired lease leaves the others held. The write lock is exclusive and
 * excludes readers. An owner holding the write lock may also take the read lock, and keeps it
 * after unlocking the write lock (a downgrade), and its read lock then counts as locked. A read
 * lock is never upgraded: an owner holding only the read lock that asks for the write lock gets
 * {@code false} at once from every {@code tryLock} (as from Redisson and
 * {@link java.util.concurrent.locks.ReentrantReadWriteLock}), and an
 * {@link IllegalMonitorStateException} at once from {@code lock()}, {@code lockInterruptibly()}
 * and {@code lockAsync}, whose unbounded wait on itself could never end. A re-entry of the write
 * lock never shortens its lease: it sets the remaining lease plus the new one, as Redisson does.
 * Every unlock that frees the lock for someone else wakes all waiters, readers and writers alike.
 */
public interface RReadWriteLock {

    /** {@return the name given to {@link LockClient#getReadWriteLock(String)}; also the Redis key} */
    String getName();

    /** {@return the shared lock} */
    RLock readLock();

    /** {@return the exclusive lock} */
    RLock writeLock();
}
