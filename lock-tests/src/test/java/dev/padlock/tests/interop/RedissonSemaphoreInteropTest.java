package dev.padlock.tests.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.PermitLease;
import dev.padlock.RPermitExpirableSemaphore;
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
 * Padlock's semaphores and a real Redisson's (the version in the pom) on the same names, for
 * {@code RSemaphore} and {@code RPermitExpirableSemaphore}: one pool of permits, and each side's
 * release wakes the other's waiter.
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
        Redissons.awaitParkedSemaphoreWaiter(redisson, BOUND);
        padlock.release();
        assertThat(waiting.get(BOUND.toSeconds() + 10, TimeUnit.SECONDS)).as("Redisson's waiter woke").isTrue();
        assertThat(padlock.availablePermits()).isZero();
        theirs.release();
    }

    @Test
    void expirablePermitsAreSharedAndEachSidesReleaseWakesTheOther(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("permits-interop");
        RPermitExpirableSemaphore padlock = clients.open().getPermitExpirableSemaphore(name);
        org.redisson.api.RPermitExpirableSemaphore theirs = redisson.getPermitExpirableSemaphore(name);
        assertThat(padlock.trySetPermits(2)).isTrue();
        assertThat(theirs.availablePermits()).isEqualTo(2);
        PermitLease mine = padlock.acquire();
        String theirId = theirs.tryAcquire(0, 30, TimeUnit.SECONDS);
        assertThat(theirId).hasSize(32);
        assertThat(padlock.tryAcquire(Duration.ZERO)).as("both permits in use, one each").isEmpty();
        assertThat(theirs.tryAcquire()).isNull();
        assertThat(admin.commands().zcard(LockKeys.permitLeases(name))).isEqualTo(2L);

        // Redisson's release wakes a Padlock waiter
        CompletableFuture<PermitLease> waiting = padlock.acquireAsync();
        awaitSubscribers(admin, name, 1);
        theirs.release(theirId);
        PermitLease second = waiting.get(BOUND.toSeconds(), TimeUnit.SECONDS);

        // and Padlock's release wakes Redisson's waiter
        CompletableFuture<String> theirWait = theirs.tryAcquireAsync(BOUND.toSeconds(), 30, TimeUnit.SECONDS)
                .toCompletableFuture();
        Redissons.awaitParkedSemaphoreWaiter(redisson, BOUND);
        mine.release();
        String theirSecond = theirWait.get(BOUND.toSeconds() + 10, TimeUnit.SECONDS);
        assertThat(theirSecond).as("Redisson's waiter woke").isNotNull();
        theirs.release(theirSecond);
        second.release();
        assertThat(padlock.availablePermits()).isEqualTo(2);
        assertThat(theirs.availablePermits()).isEqualTo(2);
    }

    @Test
    void aPermitOfAHolderThatStoppedComesBackForTheOtherLibrary() throws Exception {
        String name = Clients.uniqueName("permits-interop");
        RPermitExpirableSemaphore padlock = clients.open().getPermitExpirableSemaphore(name);
        org.redisson.api.RPermitExpirableSemaphore theirs = redisson.getPermitExpirableSemaphore(name);
        padlock.trySetPermits(1);
        padlock.acquire(Duration.ofMillis(800)); // never released: as from a holder that died
        String theirId = theirs.tryAcquire(BOUND.toSeconds(), 30, TimeUnit.SECONDS);
        assertThat(theirId).as("Redisson got the permit once Padlock's lease ended").isNotNull();
        theirs.release(theirId);
        // the other way round: Redisson's fixed lease ends, and Padlock's waiter gets the permit
        theirs.acquire(800, TimeUnit.MILLISECONDS);
        assertThat(padlock.tryAcquire(BOUND).orElseThrow().permitId()).hasSize(32);
    }
}
