package dev.padlock.tests.kinds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 38: a plain lock and a read-write lock of the same name share one Redis key, a hash, as
 * Redisson's {@code RLock} and {@code RReadWriteLock} do, and do not exclude each other as one
 * might expect. What docs/user-guide/lock-kinds.md says ("One name, one kind") is what this pins:
 * a reader or a writer finds a plain holder's hash without a {@code mode} field and joins it, both
 * holding at once; a plain lock waits for another owner's read or write hold; and the plain
 * holder's last unlock deletes the key, the reader's hold with it.
 */
@RedisTest
class MixedKindsOnOneNameTest {
    private static final long HOLDER = 1;
    private static final long OTHER = 2;

    @RegisterExtension
    final Clients clients = new Clients();

    @Test
    void aReadLockIsTakenBesideAPlainHolderOfTheSameName(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("mixed-plain-then-read");
        LockClient first = clients.open();
        LockClient second = clients.open();
        RLock plain = first.getLock(name);
        RLock read = second.getReadWriteLock(name).readLock();
        plain.lockAsync(30, TimeUnit.SECONDS, HOLDER).get(10, TimeUnit.SECONDS);

        assertThat(read.tryLockAsync(0, 30_000, TimeUnit.MILLISECONDS, OTHER).get(10, TimeUnit.SECONDS))
                .as("a reader of another client, while the plain lock is held").isTrue();
        assertThat(admin.commands().hgetall(name)).as("one hash, both owners")
                .containsEntry(first.getId() + ":" + HOLDER, "1")
                .containsEntry(second.getId() + ":" + OTHER, "1")
                .containsEntry("mode", "read");

        plain.unlockAsync(HOLDER).get(10, TimeUnit.SECONDS);
        assertThat(admin.commands().exists(name)).as("the plain holder's last unlock deleted the key").isZero();
        assertThat(read.isHeldByThread(OTHER)).as("the reader's hold went with it").isFalse();
    }

    @Test
    void aWriteLockIsTakenBesideAPlainHolderOfTheSameName(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("mixed-plain-then-write");
        LockClient first = clients.open();
        LockClient second = clients.open();
        RLock plain = first.getLock(name);
        RLock write = second.getReadWriteLock(name).writeLock();
        plain.lockAsync(30, TimeUnit.SECONDS, HOLDER).get(10, TimeUnit.SECONDS);
        try {
            assertThat(write.tryLockAsync(0, 30_000, TimeUnit.MILLISECONDS, OTHER).get(10, TimeUnit.SECONDS))
                    .as("a writer of another client, while the plain lock is held").isTrue();
            assertThat(admin.commands().hget(name, "mode")).isEqualTo("write");
            assertThat(plain.isHeldByThread(HOLDER)).as("the plain holder still holds").isTrue();
        } finally {
            plain.forceUnlock();
        }
    }

    @Test
    void aPlainLockWaitsForAReadHolderOfAnotherOwner(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("mixed-read-then-plain");
        LockClient first = clients.open();
        LockClient second = clients.open();
        RLock read = first.getReadWriteLock(name).readLock();
        RLock plain = second.getLock(name);
        read.lockAsync(30, TimeUnit.SECONDS, HOLDER).get(10, TimeUnit.SECONDS);
        try {
            assertThat(plain.tryLockAsync(0, 30_000, TimeUnit.MILLISECONDS, OTHER).get(10, TimeUnit.SECONDS))
                    .as("a plain lock of another client, while the read lock is held").isFalse();
        } finally {
            read.unlockAsync(HOLDER).get(10, TimeUnit.SECONDS);
        }
        assertThat(admin.commands().exists(name)).isZero();
    }
}
