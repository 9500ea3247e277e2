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
 *
 * <p>One name, one kind: this pair and the plain lock of the same name
 * ({@link LockClient#getLock(String)}, and the fair, fenced and spin locks) are the same Redis
 * key, in Redisson's format, and do not exclude each other. A reader or writer takes the lock
 * beside a plain holder (both hold at once), a plain lock waits for a reader or writer of
 * another owner, and the plain holder's last unlock deletes the key with the reader's or
 * writer's hold. Redisson's {@code RLock} and {@code RReadWriteLock} behave the same. Give a
 * read-write lock a name of its own (docs/user-guide/lock-kinds.md).
 */
public interface RReadWriteLock {

    /** {@return the name given to {@link LockClient#getReadWriteLock(String)}; also the Redis key} */
    String getName();

    /** {@return the shared lock} */
    RLock readLock();

    /** {@return the exclusive lock} */
    RLock writeLock();
}
