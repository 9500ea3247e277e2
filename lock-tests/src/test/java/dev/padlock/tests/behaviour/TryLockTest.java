package dev.padlock.tests.behaviour;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.RLock;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@RedisTest
class TryLockTest {
    @RegisterExtension
    final Clients clients = new Clients();
    private RLock mine;
    private RLock theirs;
    private String name;

    @BeforeEach
    void open() {
        name = Clients.uniqueName("try");
        mine = clients.open().getLock(name);
        theirs = clients.open().getLock(name);
    }

    @Test
    void tryLockFailsAtOnceWhenHeldElsewhere() throws Exception {
        assertThat(mine.tryLock()).isTrue();
        try {
            long start = System.nanoTime();
            assertThat(theirs.tryLock()).isFalse();
            assertThat(theirs.tryLock(0, TimeUnit.SECONDS)).isFalse();
            // two round trips when it works; the bound only catches a wait into the 30 s lease
            assertThat(elapsedMillis(start)).as("no wait for a zero wait").isLessThan(10_000);
        } finally {
            mine.unlock();
        }
        assertThat(theirs.tryLock()).isTrue();
        theirs.unlock();
    }

    @Test
    void tryLockWithAWaitGivesUpAfterAboutTheWait(RedisAdmin admin) throws Exception {
        mine.lock(30, TimeUnit.SECONDS);
        try {
            long start = System.nanoTime();
            assertThat(theirs.tryLock(300, TimeUnit.MILLISECONDS)).isFalse();
            long elapsed = elapsedMillis(start);
            System.out.printf("tryLock(300 ms) on a held lock gave up after %d ms%n", elapsed);
            // never before the wait is over; the upper bound, generous for a busy machine, catches a wait
            // that runs into the 30 s lease
            assertThat(elapsed).isGreaterThanOrEqualTo(300).isLessThan(10_000);
            assertThat(admin.commands().hlen(name)).as("the waiter left no field behind").isEqualTo(1);
        } finally {
            mine.unlock();
        }
    }

    @Test
    void tryLockWithAWaitSucceedsWhenTheLockIsFreedInsideIt(RedisAdmin admin) throws Exception {
        mine.lock(30, TimeUnit.SECONDS);
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                boolean acquired = theirs.tryLock(20, 30, TimeUnit.SECONDS);
                if (acquired) {
                    theirs.unlock();
                }
                return acquired;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        // the waiter is waiting (it listens for the unlock), so the lock is freed inside its wait
        String channel = "redisson_lock__channel:{" + name + "}";
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10))
                .until(() -> admin.commands().pubsubNumsub(channel).getOrDefault(channel, 0L) >= 1);
        mine.unlock();
        assertThat(waiter.get(30, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aWaiterWithoutUnlockMessageStillGetsTheLockWhenTheLeaseEnds() throws Exception {
        mine.lock(500, TimeUnit.MILLISECONDS);
        long start = System.nanoTime();
        assertThat(theirs.tryLock(30, 10, TimeUnit.SECONDS)).isTrue();
        System.out.printf("acquired %d ms after a 500 ms lease began%n", elapsedMillis(start));
        // the 500 ms lease when it works; a waiter that missed its end would wait its whole 30 s: the
        // bound between the two is generous for a busy machine
        assertThat(elapsedMillis(start)).isLessThan(10_000);
        theirs.unlock();
    }

    @Test
    void tryLockAsyncReportsAcquiredAndNotAcquired() throws Exception {
        assertThat(mine.tryLockAsync(0, 10, TimeUnit.SECONDS, 11L).get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(theirs.tryLockAsync(100, 10, TimeUnit.MILLISECONDS, 11L).get(5, TimeUnit.SECONDS)).isFalse();
        mine.unlockAsync(11L).get(5, TimeUnit.SECONDS);
        assertThat(theirs.tryLockAsync(100, 10, TimeUnit.MILLISECONDS, 11L).get(5, TimeUnit.SECONDS)).isTrue();
        theirs.unlockAsync(11L).get(5, TimeUnit.SECONDS);
    }

    private static long elapsedMillis(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }
}
