package dev.padlock.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.integration.support.locks.DistributedLock;

/** {@link PadlockLockRegistry} against a real Redis, as RedisLockRegistry's users rely on it. */
@RedisTest
class PadlockLockRegistryTest {
    private LockClient client;
    private LockClient otherClient;
    private String registryKey;

    @BeforeEach
    void open(RedisEndpoint redis) {
        client = LockClient.connect(redis.uri());
        otherClient = LockClient.connect(redis.uri());
        registryKey = "registry-" + UUID.randomUUID();
    }

    @AfterEach
    void close(RedisAdmin admin) {
        client.close();
        otherClient.close();
        assertThat(admin.commands().keys(registryKey + "*")).as("nothing left behind").isEmpty();
    }

    @Test
    void aLockIsTheHashRegistryKeyColonKeyAndReentrant(RedisAdmin admin) {
        PadlockLockRegistry registry = new PadlockLockRegistry(client, registryKey);
        Lock lock = registry.obtain("orders");
        assertThat(registry.obtain("orders")).isSameAs(lock);
        lock.lock();
        lock.lock();
        assertThat(admin.commands().hgetall(registryKey + ":orders"))
                .containsExactly(java.util.Map.entry(client.getId() + ":" + Thread.currentThread().getId(), "2"));
        lock.unlock();
        lock.unlock();
        assertThat(admin.commands().exists(registryKey + ":orders")).isZero();
        assertThatThrownBy(() -> registry.obtain(42)).isInstanceOf(IllegalArgumentException.class);
    }

    /** Regression (issue 37): a lease Redis cannot take is refused at the call, and nothing is written. */
    @Test
    void aLeaseTooLargeForRedisFailsAtTheCallAndWritesNothing(RedisAdmin admin) {
        Duration tooLong = dev.padlock.RLock.MAX_LEASE.plusMillis(1);
        assertThatThrownBy(() -> new PadlockLockRegistry(client, registryKey, tooLong))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expireAfter");
        PadlockLockRegistry registry = new PadlockLockRegistry(client, registryKey);
        DistributedLock lock = registry.obtain("huge");

        assertThatThrownBy(() -> lock.lock(tooLong)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> lock.tryLock(Duration.ZERO, Duration.ofSeconds(Long.MAX_VALUE)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(admin.commands().exists(registryKey + ":huge")).isZero();
        lock.lock(Duration.ofSeconds(5));
        assertThatThrownBy(() -> registry.renewLock("huge", tooLong)).isInstanceOf(IllegalArgumentException.class);
        assertThat(admin.commands().pttl(registryKey + ":huge")).isBetween(1L, 5_000L);
        lock.unlock();
    }

    @Test
    void aLeaseOfARegistryLockIsReleasedByAnotherThreadAndKeepsTheRegistrysLease(RedisAdmin admin)
            throws Exception {
        PadlockLockRegistry registry = new PadlockLockRegistry(client, registryKey, Duration.ofSeconds(20));
        dev.padlock.LockLease lease = registry.tryAcquireLease("orders", Duration.ZERO).orElseThrow();
        assertThat(admin.commands().pttl(registryKey + ":orders")).isBetween(1L, 20_000L);
        assertThat(new PadlockLockRegistry(otherClient, registryKey).obtain("orders").tryLock()).isFalse();
        assertThat(registry.tryAcquireLease("orders", Duration.ZERO)).as("a lease is not reentrant").isEmpty();

        CompletableFuture.runAsync(lease::release).get(30, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(admin.commands().exists(registryKey + ":orders")).isZero();
    }

    @Test
    void twoProcessesExcludeEachOtherAndAWaiterIsWokenAtUnlock(RedisAdmin admin) throws Exception {
        PadlockLockRegistry mine = new PadlockLockRegistry(client, registryKey);
        PadlockLockRegistry theirs = new PadlockLockRegistry(otherClient, registryKey);
        DistributedLock lock = mine.obtain("job");
        lock.lock(); // a watchdog lease: it never runs out while held, so only the unlock can let the waiter in
        assertThat(theirs.obtain("job").tryLock()).isFalse();
        CompletableFuture<Long> acquiredAt = CompletableFuture.supplyAsync(() -> {
            try {
                boolean got = theirs.obtain("job").tryLock(Duration.ofSeconds(30), Duration.ofSeconds(5));
                long at = System.nanoTime();
                assertThat(got).isTrue();
                theirs.obtain("job").unlock();
                return at;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        // the waiter listens on the lock's unlock channel (an unlock from here on wakes it)
        String channel = "redisson_lock__channel:{" + registryKey + ":job}";
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10))
                .until(() -> admin.commands().pubsubNumsub(channel).getOrDefault(channel, 0L) >= 1);
        long unlockedAt = System.nanoTime();
        lock.unlock();
        // an upper bound that only catches a waiter left asleep (its wait is 30 s), generous for a loaded machine
        assertThat(TimeUnit.NANOSECONDS.toMillis(acquiredAt.get(30, TimeUnit.SECONDS) - unlockedAt))
                .as("woken by the unlock, not by polling or the lease").isLessThan(10_000);
    }

    @Test
    void aReentrantTryLockByTheHolderSetsTheLeaseAgain(RedisAdmin admin) throws Exception {
        // leases far apart, so which one is set shows in the PTTL without waiting for time to pass
        PadlockLockRegistry registry = new PadlockLockRegistry(client, registryKey, Duration.ofSeconds(30));
        DistributedLock lock = registry.obtain("leader");
        assertThat(lock.tryLock(Duration.ZERO, Duration.ofSeconds(5))).isTrue();
        assertThat(admin.commands().pttl(registryKey + ":leader")).isBetween(0L, 5_000L);
        assertThat(lock.tryLock(100, TimeUnit.MILLISECONDS)).isTrue(); // the registry's 30 s
        assertThat(admin.commands().pttl(registryKey + ":leader")).as("set again, above the first 5 s")
                .isGreaterThan(5_000);
        lock.unlock();
        assertThat(admin.commands().pttl(registryKey + ":leader")).as("the inner unlock keeps the lease")
                .isGreaterThan(5_000);
        lock.unlock();
    }

    @Test
    void anUnlockByANonHolderOrAfterTheLeaseRanOutFailsAsRedisLockRegistrysDoes(RedisAdmin admin) throws Exception {
        PadlockLockRegistry registry = new PadlockLockRegistry(client, registryKey, Duration.ofMillis(200));
        DistributedLock lock = registry.obtain("short");
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("You do not own lock");
        lock.lock();
        await().atMost(Duration.ofSeconds(5)).until(() -> admin.commands().exists(registryKey + ":short") == 0);
        assertThatThrownBy(lock::unlock).isInstanceOf(ConcurrentModificationException.class)
                .hasMessageContaining("Lock was released in the store due to expiration");
        assertThatThrownBy(lock::unlock).as("and the hold is gone locally too").isInstanceOf(IllegalStateException.class);
    }

    @Test
    void renewLockSetsTheLeaseOfAHeldLockAndFailsForAFreeOne(RedisAdmin admin) {
        PadlockLockRegistry registry = new PadlockLockRegistry(client, registryKey, Duration.ofSeconds(1));
        DistributedLock lock = registry.obtain("renewed");
        assertThatThrownBy(() -> registry.renewLock("renewed")).isInstanceOf(IllegalStateException.class);
        lock.lock();
        registry.renewLock("renewed", Duration.ofSeconds(30));
        assertThat(admin.commands().pttl(registryKey + ":renewed")).isGreaterThan(20_000);
        assertThat(admin.commands().hvals(registryKey + ":renewed")).containsExactly("1");
        lock.unlock();
        assertThatThrownBy(() -> registry.renewLock("renewed")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void expireUnusedOlderThanDropsOnlyLocksNobodyHolds() throws Exception {
        PadlockLockRegistry registry = new PadlockLockRegistry(client, registryKey);
        DistributedLock held = registry.obtain("held");
        DistributedLock idle = registry.obtain("idle");
        held.lock();
        registry.expireUnusedOlderThan(0);
        assertThat(registry.obtain("held")).isSameAs(held);
        assertThat(registry.obtain("idle")).isNotSameAs(idle);
        held.unlock();
    }

    @Test
    void executeLockedRunsUnderTheLock(RedisAdmin admin) throws Exception {
        PadlockLockRegistry registry = new PadlockLockRegistry(client, registryKey);
        String seen = registry.executeLocked("task", () -> admin.commands().exists(registryKey + ":task") + " held");
        assertThat(seen).isEqualTo("1 held");
        registry.executeLocked("task", Duration.ofSeconds(1), () -> assertThat(
                admin.commands().exists(registryKey + ":task")).isOne());
    }

    /**
     * A flake of the leader-election test under load: the leader's context closed, its initiator
     * interrupted the leader thread, whose unlock counted the hold released before Redis answered;
     * the registry's destroy then stopped waiting and the client closed under the unlock, which
     * failed, and the lock held on for its 30 s watchdog lease. A hold counts until Redis answered.
     */
    @Test
    void destroyWaitsForAnUnlockInFlightBeforeTheClientCloses(RedisEndpoint redis, RedisAdmin admin)
            throws Exception {
        LockClient closing = LockClient.connect(redis.uri());
        PadlockLockRegistry registry = new PadlockLockRegistry(closing, registryKey);
        Lock lock = registry.obtain("closing");
        java.util.concurrent.ExecutorService holder = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            holder.submit(lock::lock).get(10, TimeUnit.SECONDS);
            admin.commands().clientPause(500); // the unlock is in flight for half a second
            java.util.concurrent.Future<?> unlock = holder.submit(lock::unlock);

            registry.destroy();
            closing.close();

            unlock.get(10, TimeUnit.SECONDS);
            assertThat(admin.commands().exists(registryKey + ":closing")).as("released before the client closed")
                    .isZero();
        } finally {
            holder.shutdownNow();
            closing.close();
        }
    }
}
