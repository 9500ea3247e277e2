package dev.padlock.tests.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.RSemaphore;
import dev.padlock.spi.LockKeys;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import dev.padlock.tests.support.Redissons;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;

/**
 * Padlock's {@code RSemaphore} and a real Redisson's (the version in the pom) on the same name:
 * one pool of permits, and each side's release wakes the other's waiter.
 */
@RedisTest
class RedissonSemaphoreInteropTest {
    private static final Duration BOUND = Duration.ofSeconds(30);

    @RegisterExtension
    final Clients clients = new Clients();

    private static RedissonClient redisson;

    @BeforeAll
    static void startRedisson(RedisEndpoint redis) {
        redisson = Redissons.open(redis.uri());
    }

    @AfterAll
    static void stopRedisson() {
        Redissons.close(redisson);
    }

    private static void awaitSubscribers(RedisAdmin admin, String name, long count) {
        String channel = LockKeys.semaphoreChannel(name);
        await("waiters subscribed").atMost(BOUND).pollInterval(Duration.ofMillis(5))
                .until(() -> admin.commands().pubsubNumsub(channel).getOrDefault(channel, 0L) >= count);
    }

    @Test
    void bothLibrariesShareThePermits(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("sem-interop");
        RSemaphore padlock = clients.open().getSemaphore(name);
        org.redisson.api.RSemaphore theirs = redisson.getSemaphore(name);
        assertThat(padlock.trySetPermits(3)).isTrue();
        assertThat(theirs.trySetPermits(5)).as("set by Padlock already").isFalse();
        assertThat(theirs.availablePermits()).isEqualTo(3);
        assertThat(theirs.tryAcquire(2)).isTrue();
        assertThat(padlock.availablePermits()).isEqualTo(1);
        assertThat(padlock.tryAcquire(2)).isFalse();
        assertThat(padlock.tryAcquire()).isTrue();
        assertThat(theirs.tryAcquire()).isFalse();
        theirs.release(2);
        padlock.release();
        assertThat(theirs.availablePermits()).isEqualTo(3);
        theirs.addPermits(2);
        assertThat(padlock.availablePermits()).isEqualTo(5);
        assertThat(padlock.drainPermits()).isEqualTo(5);
        assertThat(theirs.availablePermits()).isZero();
        assertThat(admin.commands().get(name)).isEqualTo("0");
    }

    @Test
    void aRedissonReleaseWakesAPadlockWaiter(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("sem-interop");
        RSemaphore padlock = clients.open().getSemaphore(name);
        org.redisson.api.RSemaphore theirs = redisson.getSemaphore(name);
        theirs.trySetPermits(1);
        theirs.acquire();
        CompletableFuture<Void> waiting = padlock.acquireAsync(1);
        awaitSubscribers(admin, name, 1);
        long released = System.nanoTime();
        theirs.release();
        waiting.get(BOUND.toSeconds(), TimeUnit.SECONDS);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released);
        System.out.printf("a Padlock waiter got the permit %d ms after Redisson's release%n", millis);
        assertThat(theirs.availablePermits()).isZero();
        padlock.release();
    }

    @Test
    void aPadlockReleaseWakesARedissonWaiter(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("sem-interop");
        RSemaphore padlock = clients.open().getSemaphore(name);
        org.redisson.api.RSemaphore theirs = redisson.getSemaphore(name);
        padlock.trySetPermits(1);
        padlock.acquire();
        CompletableFuture<Boolean> waiting = theirs.tryAcquireAsync(1, BOUND.toSeconds(), TimeUnit.SECONDS)
                .toCompletableFuture();
        awaitSubscribers(admin, name, 1);
        padlock.release();
        assertThat(waiting.get(BOUND.toSeconds() + 10, TimeUnit.SECONDS)).as("Redisson's waiter woke").isTrue();
        assertThat(padlock.availablePermits()).isZero();
        theirs.release();
    }
}
