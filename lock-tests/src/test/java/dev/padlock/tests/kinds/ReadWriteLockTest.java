package dev.padlock.tests.kinds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.RReadWriteLock;
import dev.padlock.spi.LockKeys;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import dev.padlock.tests.support.Contention;
import dev.padlock.tests.support.Renewals;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The read-write lock: shared readers, an exclusive writer, downgrade, and a lease per reader. */
@RedisTest
class ReadWriteLockTest {
    @RegisterExtension
    final Clients clients = new Clients();

    private final ExecutorService pool = Executors.newCachedThreadPool();
    /** The most a condition or a woken waiter is given: catches a hang, not a slow machine. */
    private static final Duration BOUND = Duration.ofSeconds(30);

    @AfterEach
    void stopPool() {
        pool.shutdownNow();
    }

    @Test
    void readersOfSeveralClientsAndThreadsHoldTheReadLockAtOnce(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("rw-readers");
        LockClient first = clients.open();
        LockClient second = clients.open();
        RLock here = first.getReadWriteLock(name).readLock();
        here.lock();
        assertThat(CompletableFuture.supplyAsync(() -> Contention.tryLock(here, 0), pool).get(10, TimeUnit.SECONDS))
                .as("another thread of the same client").isTrue();
        RLock there = second.getReadWriteLock(name).readLock();
        assertThat(there.tryLock(0, -1, TimeUnit.MILLISECONDS)).as("another client").isTrue();
        assertThat(here.isHeldByCurrentThread()).isTrue();
        assertThat(there.isHeldByCurrentThread()).isTrue();
        assertThat(here.isLocked()).isTrue();
        assertThat(first.getReadWriteLock(name).writeLock().isLocked()).isFalse();
        assertThat(admin.commands().hget(name, "mode")).isEqualTo("read");
        assertThat(admin.commands().exists("{" + name + "}:" + first.getId() + ":" + Thread.currentThread().getId()
                + ":rwlock_timeout:1")).as("each read hold has its own lease key").isEqualTo(1L);
        here.unlock();
        there.unlock();
        assertThat(admin.commands().exists(name)).isEqualTo(1L); // the other thread of the first client still reads
    }

    @Test
    void readersExcludeTheWriterAndTheLastReadersUnlockWakesIt(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("rw-writer-waits");
        RLock readerOne = clients.open().getReadWriteLock(name).readLock();
        RLock readerTwo = clients.open().getReadWriteLock(name).readLock();
        RLock writer = clients.open().getReadWriteLock(name).writeLock();
        readerOne.lock();
        readerTwo.lock();
        assertThat(writer.tryLock(200, TimeUnit.MILLISECONDS)).isFalse();
        CompletableFuture<Long> writerAt = CompletableFuture.supplyAsync(() -> {
            assertThat(Contention.tryLock(writer, 20_000)).isTrue();
            long at = System.nanoTime();
            writer.unlock();
            return at;
        }, pool);
        // the writer waits in Padlock's line for its turn
        await().atMost(BOUND).pollInterval(Duration.ofMillis(10))
                .until(() -> admin.commands().exists(LockKeys.readWriteLine(name)) == 1);
        readerOne.unlock();
        // reader two's watchdog lease keeps the writer out however long this takes: a state, not a race
        await().during(Duration.ofMillis(300)).atMost(BOUND).until(() -> !writerAt.isDone());
        long unlockedAt = System.nanoTime();
        readerTwo.unlock();
        long millis = TimeUnit.NANOSECONDS.toMillis(writerAt.get(BOUND.toSeconds(), TimeUnit.SECONDS) - unlockedAt);
        System.out.printf("writer acquired %d ms after the last reader's unlock (leases 30 s)%n", millis);
        // generous for a busy machine, far from the 20-30 s a writer left asleep waits
        assertThat(millis).as("woken by the unlock, not by a lease").isLessThan(10_000);
    }

    @Test
    void theWriterExcludesReadersAndItsUnlockWakesThemAll(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("rw-readers-wait");
        RLock writer = clients.open().getReadWriteLock(name).writeLock();
        writer.lock();
        List<CompletableFuture<Long>> readers = new ArrayList<>();
        for (LockClient client : List.of(clients.open(), clients.open())) {
            RLock reader = client.getReadWriteLock(name).readLock();
            assertThat(reader.tryLock(100, TimeUnit.MILLISECONDS)).isFalse();
            for (int i = 0; i < 2; i++) {
                readers.add(CompletableFuture.supplyAsync(() -> {
                    assertThat(Contention.tryLock(reader, 20_000)).isTrue();
                    long at = System.nanoTime();
                    Contention.sleep(300); // work under the read lock, so all four hold at once
                    reader.unlock();
                    return at;
                }, pool));
            }
        }
        // both clients' readers wait in the readers' hall, which the writer's release grants
        await().atMost(BOUND).pollInterval(Duration.ofMillis(10))
                .until(() -> admin.commands().hlen(LockKeys.readWriteReaders(name)) >= 2);
        long unlockedAt = System.nanoTime();
        writer.unlock();
        for (CompletableFuture<Long> reader : readers) {
            long millis = TimeUnit.NANOSECONDS.toMillis(reader.get(BOUND.toSeconds(), TimeUnit.SECONDS) - unlockedAt);
            // generous for a busy machine, far from the 20-30 s a reader left asleep waits
            assertThat(millis).as("every reader woken by the writer's unlock").isLessThan(10_000);
        }
    }

    @Test
    void theWriterMayTakeTheReadLockAndKeepItAfterUnlockingTheWriteLock(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("rw-downgrade");
        RReadWriteLock mine = clients.open().getReadWriteLock(name);
        RReadWriteLock other = clients.open().getReadWriteLock(name);
        mine.writeLock().lock();
        mine.writeLock().lock();
        assertThat(mine.writeLock().getHoldCount()).isEqualTo(2);
        assertThat(mine.readLock().tryLock()).as("the writer reads too").isTrue();
        assertThat(other.readLock().tryLock()).isFalse();
        mine.writeLock().unlock();
        mine.writeLock().unlock();
        assertThat(admin.commands().hget(name, "mode")).as("downgraded").isEqualTo("read");
        assertThat(mine.readLock().isHeldByCurrentThread()).isTrue();
        assertThat(other.writeLock().tryLock()).as("still read-locked").isFalse();
        assertThat(other.readLock().tryLock()).as("other readers join").isTrue();
        other.readLock().unlock();
        mine.readLock().unlock();
        assertThat(admin.commands().exists(name)).isZero();
        assertThat(other.writeLock().tryLock()).isTrue();
        other.writeLock().unlock();
    }

    @Test
    void aReadLockIsNeverUpgraded() throws Exception {
        String name = Clients.uniqueName("rw-upgrade");
        RReadWriteLock lock = clients.open().getReadWriteLock(name);
        lock.readLock().lock();
        assertThat(lock.writeLock().tryLock(100, TimeUnit.MILLISECONDS)).isFalse();
        assertThatThrownBy(() -> lock.writeLock().lock())
                .isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining("upgraded");
        assertThat(lock.writeLock().isLocked()).isFalse();
        lock.readLock().unlock();
        assertThat(lock.writeLock().tryLock()).isTrue();
        lock.writeLock().unlock();
    }

    /**
     * Issue 14: a reader asking for the write lock with a bounded wait is told {@code false} at
     * once, as by Redisson and {@code ReentrantReadWriteLock}; only an unbounded wait, which could
     * never end, throws.
     */
    @Test
    void writeTryLockByReaderAnswersFalse(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("rw-upgrade-try");
        LockClient client = clients.open();
        RReadWriteLock lock = client.getReadWriteLock(name);
        RLock write = lock.writeLock();
        long threadId = Thread.currentThread().getId();
        lock.readLock().lock();
        Map<String, String> readState = admin.commands().hgetall(name);

        assertThat(write.tryLock()).as("one-shot").isFalse();
        long start = System.nanoTime();
        assertThat(write.tryLock(10, TimeUnit.SECONDS)).as("timed").isFalse();
        assertThat(write.tryLock(10, 5, TimeUnit.SECONDS)).as("timed, fixed lease").isFalse();
        assertThat(write.tryLockAsync(10, -1, TimeUnit.SECONDS, threadId).get(10, TimeUnit.SECONDS)).as("async").isFalse();
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        // three round trips when it works; one wait that ran out is already 10 s
        assertThat(millis).as("answered at once, not after the wait").isLessThan(8_000);

        assertThatThrownBy(write::lock).isInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(write::lockInterruptibly).isInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(() -> write.lockAsync(-1, TimeUnit.MILLISECONDS, threadId).get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(IllegalMonitorStateException.class);

        assertThat(admin.commands().hgetall(name)).as("nothing left behind").isEqualTo(readState);
        String channel = "redisson_rwlock:{" + name + "}";
        await().atMost(BOUND)
                .until(() -> admin.commands().pubsubNumsub(channel).getOrDefault(channel, 0L) == 0L);
        lock.readLock().unlock();
        assertThat(admin.commands().exists(name)).isZero();
        assertThat(write.tryLock()).isTrue();
        write.unlock();
    }

    /** Issue 14: the writer's own read hold keeps the read lock locked, as Redisson answers. */
    @Test
    void readLockIsLockedWhileWriterAlsoReads() {
        String name = Clients.uniqueName("rw-read-locked");
        RReadWriteLock mine = clients.open().getReadWriteLock(name);
        RReadWriteLock other = clients.open().getReadWriteLock(name);
        mine.writeLock().lock();
        assertThat(other.readLock().isLocked()).as("write only").isFalse();
        mine.readLock().lock();
        assertThat(mine.readLock().isLocked()).as("the writer also reads").isTrue();
        assertThat(other.readLock().isLocked()).as("seen by another client").isTrue();
        assertThat(other.writeLock().isLocked()).isTrue();
        mine.writeLock().unlock();
        assertThat(other.readLock().isLocked()).as("downgraded").isTrue();
        assertThat(other.writeLock().isLocked()).isFalse();
        mine.readLock().unlock();
        assertThat(other.readLock().isLocked()).isFalse();
    }

    /**
     * Issue 14: an inner write acquisition with a shorter lease must not cut the lease the outer
     * one holds; as Redisson's write lock does, re-entry sets the remaining lease plus the new one.
     */
    @Test
    void writeReentryWithShorterLeaseKeepsTheLongerLease(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("rw-write-reentry");
        RLock write = clients.open().getReadWriteLock(name).writeLock();
        RLock otherWriter = clients.open().getReadWriteLock(name).writeLock();
        write.lock(10, TimeUnit.SECONDS);
        write.lock(1, TimeUnit.SECONDS);
        assertThat(write.getHoldCount()).isEqualTo(2);
        assertThat(admin.commands().pttl(name)).as("remaining lease plus the new one")
                .isGreaterThan(9_000).isLessThanOrEqualTo(11_000);
        assertThat(otherWriter.tryLock(1_500, TimeUnit.MILLISECONDS)).as("still held twice after the inner lease").isFalse();
        assertThat(write.isHeldByCurrentThread()).isTrue();
        write.unlock();
        write.unlock();
        assertThat(admin.commands().exists(name)).isZero();
    }

    /** Issue 14, the read side: every read hold has its own lease, so a short inner one cuts nothing. */
    @Test
    void readReentryWithShorterLeaseKeepsTheLongerLease(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("rw-read-reentry");
        RLock read = clients.open().getReadWriteLock(name).readLock();
        RLock writer = clients.open().getReadWriteLock(name).writeLock();
        read.lock(10, TimeUnit.SECONDS);
        read.lock(1, TimeUnit.SECONDS);
        assertThat(admin.commands().pttl(name)).as("the longest lease").isGreaterThan(9_000);
        assertThat(writer.tryLock(1_500, TimeUnit.MILLISECONDS)).as("the outer read hold lives on").isFalse();
        read.unlock();
        read.unlock();
        assertThat(admin.commands().exists(name)).isZero();
        assertThat(writer.tryLock()).isTrue();
        writer.unlock();
    }

    @Test
    void oneReadersExpiredLeaseLeavesTheOthersHeld(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("rw-expiry");
        LockClient shortClient = clients.open();
        RLock shortLived = shortClient.getReadWriteLock(name).readLock();
        Renewals renewals = new Renewals();
        RLock renewed = clients.open(b -> b.watchdogTimeout(Duration.ofMillis(1_500)).observer(renewals))
                .getReadWriteLock(name).readLock();
        RLock writer = clients.open().getReadWriteLock(name).writeLock();
        shortLived.lock(300, TimeUnit.MILLISECONDS);
        renewed.lock(); // watchdog lease, renewed every 500 ms
        // the short lease is over (its key expired), and the renewed one has been renewed past its first lease
        String shortLease = LockKeys.readLeasePrefix(name,
                LockKeys.ownerField(shortClient.getId(), Thread.currentThread().getId())) + ":1";
        await().atMost(BOUND).pollInterval(Duration.ofMillis(20)).until(() -> admin.commands().exists(shortLease) == 0);
        renewals.awaitMore(5);
        assertThatThrownBy(shortLived::unlock).as("its own lease ran out").isInstanceOf(IllegalMonitorStateException.class);
        assertThat(renewed.isHeldByCurrentThread()).isTrue();
        assertThat(admin.commands().pttl(name)).as("the lock lives on with the renewed lease").isPositive();
        assertThat(writer.tryLock(100, TimeUnit.MILLISECONDS)).isFalse();
        renewed.unlock();
        assertThat(writer.tryLock(1, TimeUnit.SECONDS)).isTrue();
        writer.unlock();
    }

    @Test
    void aReaderThatNeverUnlocksHoldsUpTheWriterOnlyForItsLease() throws Exception {
        String name = Clients.uniqueName("rw-dead-reader");
        RLock reader = clients.open().getReadWriteLock(name).readLock();
        RLock writer = clients.open().getReadWriteLock(name).writeLock();
        long start = System.nanoTime(); // before the lease starts on Redis, so it cannot end sooner than 500 ms from here
        reader.lock(500, TimeUnit.MILLISECONDS);
        assertThat(writer.tryLock(30, TimeUnit.SECONDS)).isTrue();
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        // not before the lease ends (less a little for Redis's expiry clock); well before the writer's 30 s
        // wait, generously for a busy machine
        assertThat(millis).isGreaterThanOrEqualTo(400).isLessThan(10_000);
        writer.unlock();
    }

    @Test
    void forceUnlockFreesOnlyItsOwnMode() throws Exception {
        String name = Clients.uniqueName("rw-force");
        RReadWriteLock lock = clients.open().getReadWriteLock(name);
        lock.readLock().lock();
        assertThat(lock.writeLock().forceUnlock()).as("not write-locked").isFalse();
        assertThat(lock.readLock().forceUnlock()).isTrue();
        assertThat(lock.readLock().isLocked()).isFalse();
        assertThat(lock.writeLock().tryLock()).isTrue();
        lock.writeLock().unlock();
    }
}
