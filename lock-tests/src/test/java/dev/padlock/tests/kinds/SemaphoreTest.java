package dev.padlock.tests.kinds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.RSemaphore;
import dev.padlock.spi.LockKeys;
import dev.padlock.testing.CommandStats;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code RSemaphore}: Redisson's own {@code RedissonSemaphoreTest}, translated to Padlock's API
 * (a test that slept for a release waits for the waiter's subscription instead), and the waits'
 * own checks. Differences from Redisson, on purpose: a count of 0 (Redisson's {@code testZero}) is
 * refused with {@link IllegalArgumentException}, as the contract says for every count; there is no
 * {@code trySetPermits(permits, ttl)} (the permit count is the one key without expiry); and
 * {@code drainPermits} leaves a count below 0 as it is (Redisson sets it to 0, which adds permits).
 */
@RedisTest
class SemaphoreTest {
    private static final Duration BOUND = Duration.ofSeconds(30);

    @RegisterExtension
    final Clients clients = new Clients();

    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void stopPool() {
        pool.shutdownNow();
    }

    private RSemaphore semaphore(String name) {
        return clients.open().getSemaphore(name);
    }

    /** Waits until a waiter of some client is subscribed to the semaphore's channel. */
    private static void awaitWaiter(RedisAdmin admin, String name) {
        String channel = LockKeys.semaphoreChannel(name);
        await("a waiter subscribed").atMost(BOUND).pollInterval(Duration.ofMillis(5))
                .until(() -> admin.commands().pubsubNumsub(channel).getOrDefault(channel, 0L) >= 1);
    }

    @Test
    void acquireAfterAddPermits(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("sem");
        RSemaphore s = semaphore(name);
        s.addPermits(1);
        CompletableFuture<Void> two = s.acquireAsync(2);
        awaitWaiter(admin, name);
        s.acquire(); // takes the one permit
        s.release();
        assertThat(two).as("one permit is not two").isNotDone();
        s.addPermits(1);
        two.get(BOUND.toSeconds(), TimeUnit.SECONDS);
        assertThat(s.availablePermits()).isZero();
    }

    @Test
    void aZeroCountOrANegativeWaitIsRefusedBeforeRedis() {
        RSemaphore s = semaphore(Clients.uniqueName("sem"));
        assertThatThrownBy(() -> s.tryAcquire(0, Duration.ofMinutes(10))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("permits");
        assertThatThrownBy(() -> s.release(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> s.trySetPermits(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> s.addPermits(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> s.tryAcquire(1, Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("wait");
        assertThatThrownBy(() -> clients.open().getSemaphore("")).isInstanceOf(IllegalArgumentException.class);
        assertThat(s.availablePermits()).isZero();
    }

    @Test
    void acquireWithoutSetPermits() throws Exception {
        RSemaphore s = semaphore(Clients.uniqueName("sem"));
        s.release();
        s.release();
        s.acquire(2);
        assertThat(s.availablePermits()).isZero();
    }

    @Test
    void trySetPermits(RedisAdmin admin) {
        String name = Clients.uniqueName("sem");
        RSemaphore s = semaphore(name);
        assertThat(s.trySetPermits(10)).isTrue();
        assertThat(s.availablePermits()).isEqualTo(10);
        assertThat(s.trySetPermits(15)).isFalse();
        assertThat(s.availablePermits()).isEqualTo(10);
        assertThat(admin.commands().ttl(name)).as("the count never expires").isEqualTo(-1L);
    }

    @Test
    void addPermits() throws Exception {
        RSemaphore s = semaphore(Clients.uniqueName("sem"));
        s.trySetPermits(10);
        s.acquire(10);
        assertThat(s.availablePermits()).isZero();
        s.addPermits(4);
        assertThat(s.availablePermits()).isEqualTo(4);
        s.release(10);
        assertThat(s.availablePermits()).isEqualTo(14);
        s.acquire(5);
        assertThat(s.availablePermits()).isEqualTo(9);
    }

    @Test
    void reducePermits() throws Exception {
        RSemaphore s = semaphore(Clients.uniqueName("sem"));
        s.trySetPermits(10);
        s.acquire(10);
        s.addPermits(-5);
        assertThat(s.availablePermits()).isEqualTo(-5);
        s.release(10);
        assertThat(s.availablePermits()).isEqualTo(5);
        s.acquire(5);
        assertThat(s.availablePermits()).isZero();
    }

    @Test
    void blockingAcquireWakesOnARelease(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("sem");
        RSemaphore s = semaphore(name);
        s.trySetPermits(1);
        s.acquire();
        Future<?> waiter = pool.submit(() -> {
            s.acquire();
            return null;
        });
        awaitWaiter(admin, name);
        semaphore(name).release(); // another client's release
        waiter.get(BOUND.toSeconds(), TimeUnit.SECONDS);
        assertThat(s.tryAcquire()).isFalse();
        assertThat(s.availablePermits()).isZero();
    }

    @Test
    void blockingNAcquireTakesThePermitsOnceEnoughAreBack(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("sem");
        RSemaphore s = semaphore(name);
        s.trySetPermits(5);
        s.acquire(3);
        assertThat(s.availablePermits()).isEqualTo(2);
        CompletableFuture<Void> four = s.acquireAsync(4);
        awaitWaiter(admin, name);
        RSemaphore other = semaphore(name);
        other.release();
        assertThat(four).isNotDone();
        other.release();
        four.get(BOUND.toSeconds(), TimeUnit.SECONDS);
        assertThat(s.availablePermits()).isZero();
    }

    @Test
    void tryNAcquireWithAWait(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("sem");
        RSemaphore s = semaphore(name);
        s.trySetPermits(5);
        assertThat(s.tryAcquire(3)).isTrue();
        assertThat(s.tryAcquire(4)).isFalse();
        CompletableFuture<Boolean> four = s.tryAcquireAsync(4, BOUND);
        awaitWaiter(admin, name);
        semaphore(name).release(2);
        assertThat(four.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(s.availablePermits()).isZero();
    }

    @Test
    void aBoundedWaitEndsFalseNoEarlierThanItsWait() throws Exception {
        RSemaphore s = semaphore(Clients.uniqueName("sem"));
        s.trySetPermits(1);
        s.acquire();
        long start = System.nanoTime();
        assertThat(s.tryAcquire(Duration.ofMillis(300))).isFalse();
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(elapsed).isGreaterThanOrEqualTo(300).isLessThan(15_000);
    }

    @Test
    void releaseWithoutPermits() {
        RSemaphore s = semaphore(Clients.uniqueName("sem"));
        s.release();
        assertThat(s.availablePermits()).isEqualTo(1);
    }

    @Test
    void drainPermits() throws Exception {
        RSemaphore s = semaphore(Clients.uniqueName("sem"));
        assertThat(s.drainPermits()).isZero();
        s.trySetPermits(10);
        s.acquire(3);
        assertThat(s.drainPermits()).isEqualTo(7);
        assertThat(s.availablePermits()).isZero();
        s.addPermits(-2);
        assertThat(s.drainPermits()).as("nothing free to take").isZero();
        assertThat(s.availablePermits()).isEqualTo(-2);
    }

    @Test
    void releaseAcquire() throws Exception {
        RSemaphore s = semaphore(Clients.uniqueName("sem"));
        s.trySetPermits(10);
        s.acquire();
        assertThat(s.availablePermits()).isEqualTo(9);
        s.release();
        assertThat(s.availablePermits()).isEqualTo(10);
        s.acquire(5);
        assertThat(s.availablePermits()).isEqualTo(5);
        s.release(5);
        assertThat(s.availablePermits()).isEqualTo(10);
    }

    @Test
    void oneFreePermitKeepsANonAtomicCounterExactAcrossClients() throws Exception {
        String name = Clients.uniqueName("sem");
        semaphore(name).trySetPermits(1);
        int instances = 8;
        int iterations = 25;
        AtomicInteger counter = new AtomicInteger();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<Future<?>> runs = new ArrayList<>();
        for (int i = 0; i < instances; i++) {
            RSemaphore s = semaphore(name);
            runs.add(pool.submit(() -> {
                for (int j = 0; j < iterations; j++) {
                    s.acquire();
                    if (inside.incrementAndGet() > 1) {
                        overlaps.incrementAndGet();
                    }
                    int value = counter.get();
                    Thread.yield();
                    counter.set(value + 1);
                    inside.decrementAndGet();
                    s.release();
                }
                return null;
            }));
        }
        for (Future<?> run : runs) {
            run.get(120, TimeUnit.SECONDS);
        }
        assertThat(overlaps.get()).isZero();
        assertThat(counter.get()).isEqualTo(instances * iterations);
        assertThat(semaphore(name).availablePermits()).isEqualTo(1);
    }

    @Test
    void mixedCountsUpToAllPermitsEndWithEveryPermitBack() throws Exception {
        String name = Clients.uniqueName("sem");
        int total = 1_000;
        semaphore(name).trySetPermits(total);
        List<Future<?>> runs = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            RSemaphore s = semaphore(name);
            int seed = i;
            runs.add(pool.submit(() -> {
                for (int j = 0; j < 10; j++) {
                    int permits = (seed + j) % 2 == 0 ? total : 1;
                    s.acquire(permits);
                    s.release(permits);
                }
                return null;
            }));
        }
        for (Future<?> run : runs) {
            run.get(120, TimeUnit.SECONDS);
        }
        assertThat(semaphore(name).availablePermits()).isEqualTo(total);
    }

    @Test
    void aReleaseOfOnePermitWakesOneOfManyWaitersOfAClient(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("sem");
        // a long command timeout: no waiter looks again on its own (every two command timeouts) during the test
        LockClient client = clients.open(config -> config.commandTimeout(Duration.ofSeconds(60)));
        RSemaphore s = client.getSemaphore(name);
        CommandStats start = admin.commandStats();
        List<CompletableFuture<Void>> waiters = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            waiters.add(s.acquireAsync(1));
        }
        awaitWaiter(admin, name);
        // each waiter attempts, subscribes, attempts again once subscribed, then parks; an attempt is
        // one GET inside semaphore_acquire, which nothing else of the clients sends (their registry
        // refresh, a script too, writes with HSET and PEXPIRE only)
        await("every waiter parked").atMost(BOUND).until(() -> attempts(CommandStats.delta(start, admin.commandStats())) >= 16);
        CommandStats before = admin.commandStats();
        semaphore(name).release();
        await("one waiter got the permit").atMost(BOUND)
                .until(() -> waiters.stream().filter(CompletableFuture::isDone).count() == 1);
        CommandStats used = CommandStats.delta(before, admin.commandStats());
        // the woken waiter's attempt (one more at most); a herd would be 8
        assertThat(attempts(used)).as("attempts after the release").isLessThanOrEqualTo(2);
        waiters.forEach(waiter -> waiter.cancel(false));
        assertThat(s.availablePermits()).isZero();
    }

    /** Acquisition attempts: each is one GET, inside semaphore_acquire. */
    private static long attempts(CommandStats stats) {
        return stats.calls("get");
    }

    @Test
    void aCancelledWaitKeepsNoPermit(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("sem");
        RSemaphore s = semaphore(name);
        CompletableFuture<Void> waiting = s.acquireAsync(2);
        awaitWaiter(admin, name);
        waiting.cancel(false);
        s.release(2);
        assertThat(s.availablePermits()).isEqualTo(2);
        assertThat(s.tryAcquire(2)).isTrue();
    }
}
