package dev.padlock.tests.kinds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.PermitLease;
import dev.padlock.RPermitExpirableSemaphore;
import dev.padlock.spi.LockKeys;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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
 * {@code RPermitExpirableSemaphore}: Redisson's own {@code RedissonPermitExpirableSemaphoreTest},
 * translated to Padlock's leases (a permit is a {@link PermitLease}, not an id string; waits for a
 * release or an expiry are waited for, not slept through), and the leases' own checks: a watchdog
 * lease outlives its first lease, a lease whose holder stopped renewing gives its permit back when
 * it ends, and a waiter wakes then. Differences from Redisson: releasing a permit that no longer
 * holds throws {@link IllegalStateException} (Redisson: {@code RedisException}); a count of 0 is
 * refused.
 */
@RedisTest
class PermitExpirableSemaphoreTest {
    private static final Duration BOUND = Duration.ofSeconds(30);

    @RegisterExtension
    final Clients clients = new Clients();

    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void stopPool() {
        pool.shutdownNow();
    }

    private RPermitExpirableSemaphore semaphore(String name) {
        return clients.open().getPermitExpirableSemaphore(name);
    }

    private static void awaitWaiter(RedisAdmin admin, String name) {
        String channel = LockKeys.semaphoreChannel(name);
        await("a waiter subscribed").atMost(BOUND).pollInterval(Duration.ofMillis(5))
                .until(() -> admin.commands().pubsubNumsub(channel).getOrDefault(channel, 0L) >= 1);
    }

    @Test
    void aFixedLeaseGivesItsPermitBackWhenItEndsAndAWaiterGetsIt(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("permits");
        RPermitExpirableSemaphore s = semaphore(name);
        s.trySetPermits(1);
        long before = System.nanoTime(); // the lease ends 1.5 s after Redis ran the acquisition, after this
        PermitLease first = s.acquire(Duration.ofMillis(1_500));
        PermitLease second = semaphore(name).acquire(); // waits until the first lease ends: no release, no message
        long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - before);
        // a little under 1.5 s for the two clocks (Redis TIME, this JVM's); the upper bound catches a hang
        assertThat(waitedMillis).as("not before the lease ended").isGreaterThanOrEqualTo(1_400).isLessThan(30_000);
        assertThatThrownBy(first::release).isInstanceOf(IllegalStateException.class).hasMessageContaining("no longer holds");
        assertThat(first.safeFor()).isZero();
        second.release();
        assertThat(s.availablePermits()).isEqualTo(1);
    }

    @Test
    void trySetPermits(RedisAdmin admin) {
        String name = Clients.uniqueName("permits");
        RPermitExpirableSemaphore s = semaphore(name);
        assertThat(s.trySetPermits(10)).isTrue();
        assertThat(s.availablePermits()).isEqualTo(10);
        assertThat(s.trySetPermits(15)).isFalse();
        assertThat(s.availablePermits()).isEqualTo(10);
        assertThat(admin.commands().ttl(name)).isEqualTo(-1L);
    }

    @Test
    void addPermits() {
        RPermitExpirableSemaphore s = semaphore(Clients.uniqueName("permits"));
        s.trySetPermits(10);
        s.addPermits(5);
        assertThat(s.availablePermits()).isEqualTo(15);
        s.addPermits(-10);
        assertThat(s.availablePermits()).isEqualTo(5);
    }

    @Test
    void blockingAcquireWakesOnARelease(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("permits");
        RPermitExpirableSemaphore s = semaphore(name);
        s.trySetPermits(1);
        PermitLease held = s.acquire();
        assertThat(held.permitId()).hasSize(32);
        assertThat(admin.commands().zscore(LockKeys.permitLeases(name), held.permitId())).isNotNull();
        Future<PermitLease> waiter = pool.submit(() -> semaphore(name).acquire());
        awaitWaiter(admin, name);
        held.release();
        PermitLease next = waiter.get(BOUND.toSeconds(), TimeUnit.SECONDS);
        assertThat(s.tryAcquire(Duration.ZERO)).isEmpty();
        assertThat(s.availablePermits()).isZero();
        next.close();
        next.close(); // idempotent
        assertThat(s.availablePermits()).isEqualTo(1);
    }

    @Test
    void tryAcquireWithAWaitGetsThePermitOnceReleased(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("permits");
        RPermitExpirableSemaphore s = semaphore(name);
        s.trySetPermits(1);
        PermitLease held = s.tryAcquire(Duration.ZERO).orElseThrow();
        assertThat(s.tryAcquire(Duration.ZERO)).isEmpty();
        CompletableFuture<Optional<PermitLease>> waiting = s.tryAcquireAsync(BOUND);
        awaitWaiter(admin, name);
        held.releaseAsync().get(BOUND.toSeconds(), TimeUnit.SECONDS);
        assertThat(waiting.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isPresent();
        assertThat(s.availablePermits()).isZero();
    }

    @Test
    void aWatchdogLeaseOutlivesItsFirstLease() throws Exception {
        String name = Clients.uniqueName("permits");
        LockClient client = clients.open(config -> config.watchdogTimeout(Duration.ofMillis(1_500)));
        RPermitExpirableSemaphore s = client.getPermitExpirableSemaphore(name);
        s.trySetPermits(1);
        PermitLease held = s.acquire();
        AtomicInteger lost = new AtomicInteger();
        held.onLost(lost::incrementAndGet);
        long start = System.nanoTime();
        await("three leases' time").atMost(BOUND).pollInterval(Duration.ofMillis(50))
                .until(() -> System.nanoTime() - start > TimeUnit.MILLISECONDS.toNanos(4_500));
        assertThat(s.tryAcquire(Duration.ZERO)).as("still held, renewed").isEmpty();
        assertThat(held.safeFor()).isPositive();
        held.release();
        assertThat(lost.get()).isZero();
        assertThat(s.availablePermits()).isEqualTo(1);
    }

    @Test
    void aPermitDeletedBehindItsBackIsLostAndToldOnce(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("permits");
        LockClient client = clients.open(config -> config.watchdogTimeout(Duration.ofMillis(900)));
        RPermitExpirableSemaphore s = client.getPermitExpirableSemaphore(name);
        s.trySetPermits(1);
        PermitLease held = s.acquire();
        AtomicInteger lost = new AtomicInteger();
        held.onLost(lost::incrementAndGet);
        admin.commands().zrem(LockKeys.permitLeases(name), held.permitId());
        await("the renewal found it gone").atMost(BOUND).until(() -> lost.get() == 1);
        assertThat(held.safeFor()).isZero();
        AtomicInteger late = new AtomicInteger();
        held.onLost(late::incrementAndGet);
        await("an action added after the loss runs too").atMost(BOUND).until(() -> late.get() == 1);
        assertThatThrownBy(held::release).isInstanceOf(IllegalStateException.class);
        assertThat(lost.get()).isEqualTo(1);
    }

    @Test
    void releasingTwiceOrAStrangersPermitFails() throws Exception {
        RPermitExpirableSemaphore s = semaphore(Clients.uniqueName("permits"));
        s.trySetPermits(1);
        PermitLease held = s.acquire(Duration.ofSeconds(30));
        held.release();
        assertThatThrownBy(held::release).isInstanceOf(IllegalStateException.class).hasMessageContaining("already");
        assertThat(s.availablePermits()).isEqualTo(1);
    }

    @Test
    void badInputIsRefusedBeforeRedis() {
        RPermitExpirableSemaphore s = semaphore(Clients.uniqueName("permits"));
        assertThatThrownBy(() -> s.trySetPermits(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> s.addPermits(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> s.tryAcquire(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> s.acquire(Duration.ofMillis(-5))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> s.acquireAsync(Duration.ofDays(30))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void oneFreePermitKeepsANonAtomicCounterExactAcrossClients() throws Exception {
        String name = Clients.uniqueName("permits");
        semaphore(name).trySetPermits(1);
        int instances = 8;
        int iterations = 20;
        AtomicInteger counter = new AtomicInteger();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<Future<?>> runs = new ArrayList<>();
        for (int i = 0; i < instances; i++) {
            RPermitExpirableSemaphore s = semaphore(name);
            runs.add(pool.submit(() -> {
                for (int j = 0; j < iterations; j++) {
                    try (PermitLease permit = s.acquire()) {
                        if (inside.incrementAndGet() > 1) {
                            overlaps.incrementAndGet();
                        }
                        int value = counter.get();
                        Thread.yield();
                        counter.set(value + 1);
                        inside.decrementAndGet();
                    }
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
    void aCancelledWaitKeepsNoPermit(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("permits");
        RPermitExpirableSemaphore s = semaphore(name);
        CompletableFuture<PermitLease> waiting = s.acquireAsync();
        awaitWaiter(admin, name);
        waiting.cancel(false);
        s.addPermits(1);
        assertThat(s.availablePermits()).isEqualTo(1);
        assertThat(admin.commands().zcard(LockKeys.permitLeases(name))).isZero();
    }
}
