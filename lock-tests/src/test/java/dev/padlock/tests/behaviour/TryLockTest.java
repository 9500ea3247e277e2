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

    /**
     * Every lease here is 10 s: a lease of a few milliseconds (as this test once had) can end on a
     * busy machine before the unlock is sent, and the unlock then rightly reports "not held".
     */
    @Test
    void tryLockAsyncReportsAcquiredAndNotAcquired() throws Exception {
        assertThat(mine.tryLockAsync(0, 10_000, TimeUnit.MILLISECONDS, 11L).get(30, TimeUnit.SECONDS)).isTrue();
        assertThat(theirs.tryLockAsync(100, 10_000, TimeUnit.MILLISECONDS, 11L).get(30, TimeUnit.SECONDS)).isFalse();
        mine.unlockAsync(11L).get(30, TimeUnit.SECONDS);
        assertThat(theirs.tryLockAsync(100, 10_000, TimeUnit.MILLISECONDS, 11L).get(30, TimeUnit.SECONDS)).isTrue();
        theirs.unlockAsync(11L).get(30, TimeUnit.SECONDS);
    }

    /**
     * One owner's acquisitions of one lock take turns in its client's local queue. A one-attempt
     * call has no wait to spend on that turn: while the owner's own earlier acquisition still
     * waits (another client holds the lock), it answers "not acquired" at once, for the plain and
     * the spin lock. It used to wait for the earlier one and fail with RedisUnavailableException at
     * the asynchronous bound, though Redis answered all along.
     */
    @Test
    void aOneAttemptByAnOwnerWhoseOwnWaitIsInFlightAnswersNotAcquiredAtOnce() throws Exception {
        for (boolean spin : new boolean[] {false, true}) {
            String lockName = Clients.uniqueName(spin ? "try-spin" : "try-plain");
            RLock waiterLock = spin ? clients.open().getSpinLock(lockName) : clients.open().getLock(lockName);
            RLock holderLock = clients.open().getLock(lockName);
            holderLock.lock(60, TimeUnit.SECONDS);
            long owner = 77;
            CompletableFuture<Boolean> waiting = waiterLock.tryLockAsync(60_000, -1, TimeUnit.MILLISECONDS, owner);
            try {
                long start = System.nanoTime();
                assertThat(waiterLock.tryLockAsync(0, -1, TimeUnit.MILLISECONDS, owner).get(30, TimeUnit.SECONDS))
                        .as("one attempt while the owner's own wait is in flight").isFalse();
                // no round trip when it works; the bound, generous for a busy machine, catches a wait
                assertThat(elapsedMillis(start)).isLessThan(10_000);
                assertThat(waiting).as("the owner's first acquisition still waits").isNotDone();
            } finally {
                holderLock.unlock();
            }
            assertThat(waiting.get(30, TimeUnit.SECONDS)).isTrue();
            waiterLock.unlockAsync(owner).get(30, TimeUnit.SECONDS);
        }
    }

    private static long elapsedMillis(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }
}
