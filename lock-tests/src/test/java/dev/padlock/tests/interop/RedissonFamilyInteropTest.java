package dev.padlock.tests.interop;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.spi.LockKeys;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import dev.padlock.tests.support.Redissons;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RReadWriteLock;
import org.redisson.api.RedissonClient;

/**
 * The lock family against a real Redisson on the same names: read-write, fenced and fair locks
 * share Redisson's formats, so each library's locks exclude the other's and tokens keep rising.
 */
@RedisTest
class RedissonFamilyInteropTest {
    /** The most a condition or a woken waiter is given: catches a hang, not a slow machine. */
    private static final Duration BOUND = Duration.ofSeconds(30);

    @RegisterExtension
    final Clients clients = new Clients();

    private static RedissonClient redisson;
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @BeforeAll
    static void startRedisson(RedisEndpoint redis) {
        redisson = Redissons.open(redis.uri());
    }

    @AfterAll
    static void stopRedisson() {
        Redissons.close(redisson);
    }

    @AfterEach
    void stopPool() {
        pool.shutdownNow();
    }

    @Test
    void readersOfBothLibrariesShareTheLockAndExcludeEachOthersWriters() throws Exception {
        String name = Clients.uniqueName("interop-rw");
        RReadWriteLock theirs = redisson.getReadWriteLock(name);
        dev.padlock.RReadWriteLock ours = clients.open().getReadWriteLock(name);

        theirs.readLock().lock();
        assertThat(ours.readLock().tryLock()).as("readers share").isTrue();
        assertThat(onOtherThread(() -> ours.writeLock().tryLock())).as("their reader excludes our writer").isFalse();
        assertThat(onOtherThread(() -> theirs.writeLock().tryLock())).isFalse();
        theirs.readLock().unlock();
        ours.readLock().unlock();
        assertThat(ours.readLock().isLocked()).isFalse();

        ours.writeLock().lock();
        assertThat(onOtherThread(() -> theirs.readLock().tryLock())).as("our writer excludes their reader").isFalse();
        assertThat(onOtherThread(() -> theirs.writeLock().tryLock())).isFalse();
        ours.writeLock().unlock();
        assertThat(onOtherThread(() -> {
            boolean taken = theirs.writeLock().tryLock();
            theirs.writeLock().unlock();
            return taken;
        })).isTrue();
    }

    @Test
    void aRedissonWritersUnlockWakesOurReader(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("interop-rw-wake");
        RReadWriteLock theirs = redisson.getReadWriteLock(name);
        dev.padlock.RLock ourReader = clients.open().getReadWriteLock(name).readLock();
        theirs.writeLock().lock(30, SECONDS);
        CompletableFuture<Long> readAt = CompletableFuture.supplyAsync(() -> {
            try {
                assertThat(ourReader.tryLock(30, SECONDS)).isTrue();
                long at = System.nanoTime();
                ourReader.unlock();
                return at;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, pool);
        // our reader listens on the shared channel Redisson's unlock publishes on
        awaitListener(admin, LockKeys.readWriteChannel(name));
        long unlockedAt = System.nanoTime();
        theirs.writeLock().unlock();
        // generous for a busy machine, far from the 30 s lease a reader left asleep waits out
        assertThat(TimeUnit.NANOSECONDS.toMillis(readAt.get(BOUND.toSeconds(), SECONDS) - unlockedAt)).isLessThan(10_000);
    }

    /**
     * Issue 13: our writers wait in Padlock's line, on channels of their own, which Redisson's
     * unlocks do not reach; our writer behind their reader still gets in after their unlock, at its
     * next look (a writer looks at least every half second), and their writer behind our reader is
     * woken by our unlock, which publishes on the shared channel while no writer of ours is in line.
     */
    @Test
    void writersOfEachLibraryGetInAfterTheOthersReaderUnlocks(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("interop-rw-line");
        RReadWriteLock theirs = redisson.getReadWriteLock(name);
        dev.padlock.RReadWriteLock ours = clients.open().getReadWriteLock(name);

        onOtherThread(() -> {
            theirs.readLock().lock(30, SECONDS);
            return null;
        });
        CompletableFuture<Void> ourWrite = ours.writeLock().lockAsync(-1, TimeUnit.MILLISECONDS, 7L);
        await().atMost(BOUND).pollInterval(Duration.ofMillis(10))
                .until(() -> admin.commands().exists(LockKeys.readWriteLine(name)) == 1); // in our line
        assertThat(ourWrite).as("their reader excludes our writer").isNotDone();
        long unlockedAt = System.nanoTime();
        onOtherThread(() -> {
            theirs.readLock().forceUnlock();
            return null;
        });
        ourWrite.get(BOUND.toSeconds(), SECONDS);
        // its next look (at least every half second) when it works; generous for a busy machine, far from
        // their reader's 30 s lease
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - unlockedAt)).isLessThan(10_000);
        assertThat(onOtherThread(() -> theirs.readLock().tryLock())).as("our writer excludes their reader").isFalse();
        ours.writeLock().unlockAsync(7L).get(5, SECONDS);

        ours.readLock().lockAsync(-1, TimeUnit.MILLISECONDS, 8L).get(5, SECONDS);
        CompletableFuture<Long> theirWriteAt = CompletableFuture.supplyAsync(() -> {
            theirs.writeLock().lock(30, SECONDS);
            long at = System.nanoTime();
            theirs.writeLock().unlock();
            return at;
        }, pool);
        // their writer listens on the shared channel, which our unlock publishes on; parked first, as
        // a writer between its attempt and its park misses a read-write unlock (Redisson's race)
        awaitListener(admin, LockKeys.readWriteChannel(name));
        Redissons.awaitParkedLockWaiter(redisson, BOUND);
        assertThat(theirWriteAt).as("our reader excludes their writer").isNotDone();
        long readUnlockedAt = System.nanoTime();
        ours.readLock().unlockAsync(8L).get(5, SECONDS);
        assertThat(TimeUnit.NANOSECONDS.toMillis(theirWriteAt.get(BOUND.toSeconds(), SECONDS) - readUnlockedAt))
                .as("woken by our unlock, not by a lease of 30 s").isLessThan(10_000);
    }

    @Test
    void fencingTokensRiseAcrossBothLibraries() throws Exception {
        String name = Clients.uniqueName("interop-fenced");
        RFencedLock theirs = redisson.getFencedLock(name);
        dev.padlock.RFencedLock ours = clients.open().getFencedLock(name);
        long theirToken = onOtherThread(() -> {
            Long token = theirs.lockAndGetToken();
            assertThat(ours.getToken()).as("we read their holder's token").isEqualTo(token);
            theirs.unlock();
            return token;
        });
        long ourToken = ours.lockAndGetToken();
        assertThat(ourToken).isGreaterThan(theirToken);
        assertThat(onOtherThread(() -> theirs.tryLock())).as("they are excluded").isFalse();
        ours.unlock();
        long next = onOtherThread(() -> {
            Long token = theirs.lockAndGetToken();
            theirs.unlock();
            return token;
        });
        assertThat(next).isGreaterThan(ourToken);
    }

    /**
     * Redisson's fair lock keeps its own queue and Padlock's its own line (issue 13: a line that an
     * unlock grants from, in one call); on one name they exclude each other through the hash, and our
     * waiter, which Redisson's unlock does not tell, takes the lock at its next look, within a grant
     * lease (two command timeouts: 6 s here).
     */
    @Test
    void aRedissonFairLockExcludesOursAndOurWaiterTakesItAfterTheirUnlock(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("interop-fair");
        RLock theirs = redisson.getFairLock(name);
        dev.padlock.RLock ours = clients.open().getFairLock(name);
        onOtherThread(() -> {
            theirs.lock(30, SECONDS);
            return null;
        });
        assertThat(ours.tryLock()).as("excluded by their hold").isFalse();
        CompletableFuture<Long> ourAt = CompletableFuture.supplyAsync(() -> {
            try {
                assertThat(ours.tryLock(40, SECONDS)).isTrue();
                long at = System.nanoTime();
                assertThat(onOtherThreadQuietly(() -> theirs.tryLock())).as("ours excludes theirs").isFalse();
                ours.unlock();
                return at;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, pool);
        await().atMost(BOUND).pollInterval(Duration.ofMillis(10))
                .until(() -> admin.commands().llen(LockKeys.fairQueue(name)) >= 1); // waiting in our line
        long unlockedAt = System.nanoTime();
        assertThat(theirs.forceUnlock()).isTrue();
        // within a grant lease when it works; the slack is generous for a busy machine and still short of
        // the waiter's 40 s wait
        assertThat(TimeUnit.NANOSECONDS.toMillis(ourAt.get(40, SECONDS) - unlockedAt))
                .as("taken at the waiter's next look, within a grant lease").isLessThan(6_000 + 10_000);
    }

    private static void awaitListener(RedisAdmin admin, String channel) {
        await("a listener on " + channel).atMost(BOUND).pollInterval(Duration.ofMillis(10))
                .until(() -> admin.commands().pubsubNumsub(channel).getOrDefault(channel, 0L) >= 1);
    }

    private <T> T onOtherThreadQuietly(java.util.concurrent.Callable<T> task) {
        try {
            return onOtherThread(task);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private <T> T onOtherThread(java.util.concurrent.Callable<T> task) throws Exception {
        return pool.submit(task).get(30, SECONDS);
    }
}
