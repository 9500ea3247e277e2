package dev.padlock.spring.integration6;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * {@link PadlockLockRegistry6} against a real Redis, on Spring Integration 6.5: what
 * {@code RedisLockRegistry}'s users rely on, as the Spring Integration 7 registry's test checks it.
 */
@RedisTest
class PadlockLockRegistry6Test {
    private LockClient client;
    private LockClient otherClient;
    private String registryKey;

    @BeforeEach
    void open(RedisEndpoint redis) {
        client = LockClient.connect(redis.uri());
        otherClient = LockClient.connect(redis.uri());
        registryKey = "registry6-" + UUID.randomUUID();
    }

    @AfterEach
    void close(RedisAdmin admin) {
        client.close();
        otherClient.close();
        assertThat(admin.commands().keys(registryKey + "*")).as("nothing left behind").isEmpty();
    }

    @Test
    void itIsSpringIntegration65sExpirableAndRenewableLockRegistry() {
        PadlockLockRegistry6 registry = new PadlockLockRegistry6(client, registryKey);
        assertThat(registry).isInstanceOf(ExpirableLockRegistry.class).isInstanceOf(RenewableLockRegistry.class);
        assertThat(ExpirableLockRegistry.class.getPackage().getImplementationVersion()).startsWith("6.5.");
    }

    @Test
    void aLockIsTheHashRegistryKeyColonKeyAndReentrant(RedisAdmin admin) {
        PadlockLockRegistry6 registry = new PadlockLockRegistry6(client, registryKey);
        Lock lock = registry.obtain("orders");
        assertThat(registry.obtain("orders")).isSameAs(lock);
        lock.lock();
        lock.lock();
        assertThat(admin.commands().hgetall(registryKey + ":orders"))
                .containsExactly(Map.entry(client.getId() + ":" + Thread.currentThread().getId(), "2"));
        lock.unlock();
        lock.unlock();
        assertThat(admin.commands().exists(registryKey + ":orders")).isZero();
        assertThatThrownBy(() -> registry.obtain(42)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void twoProcessesExcludeEachOtherAndAWaiterIsWokenAtUnlock(RedisAdmin admin) throws Exception {
        PadlockLockRegistry6 mine = new PadlockLockRegistry6(client, registryKey);
        PadlockLockRegistry6 theirs = new PadlockLockRegistry6(otherClient, registryKey);
        Lock lock = mine.obtain("job");
        lock.lock();
        assertThat(theirs.obtain("job").tryLock()).isFalse();
        CompletableFuture<Long> waited = CompletableFuture.supplyAsync(() -> {
            try {
                assertThat(theirs.obtain("job").tryLock(30, TimeUnit.SECONDS)).isTrue();
                long woken = System.nanoTime();
                theirs.obtain("job").unlock();
                return woken;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        // the waiter listens on the lock's channel before it waits
        await().atMost(Duration.ofSeconds(30))
                .until(() -> admin.pubSubChannels().stream().anyMatch(c -> c.contains(registryKey + ":job")));
        long unlocked = System.nanoTime();
        lock.unlock();
        // an upper bound that only catches a waiter left asleep (its wait is 30 s), generous for a loaded machine
        assertThat(TimeUnit.NANOSECONDS.toMillis(waited.get(30, TimeUnit.SECONDS) - unlocked))
                .as("woken by the unlock, not by polling or the lease").isLessThan(10_000);
    }

    @Test
    void aReentrantTryLockByTheHolderSetsTheLeaseAgain(RedisAdmin admin) throws Exception {
        PadlockLockRegistry6 registry = new PadlockLockRegistry6(client, registryKey, Duration.ofSeconds(4));
        Lock lock = registry.obtain("leader");
        assertThat(lock.tryLock(0, TimeUnit.MILLISECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> admin.commands().pttl(registryKey + ":leader") < 3_000);
        assertThat(lock.tryLock(100, TimeUnit.MILLISECONDS)).as("the heartbeat's re-entry").isTrue();
        assertThat(admin.commands().pttl(registryKey + ":leader")).isGreaterThan(3_000);
        lock.unlock();
        assertThat(admin.commands().hvals(registryKey + ":leader")).as("the inner unlock keeps the hold")
                .containsExactly("1");
        lock.unlock();
    }

    @Test
    void anUnlockByANonHolderOrAfterTheLeaseRanOutFailsAsRedisLockRegistrysDoes(RedisAdmin admin) {
        PadlockLockRegistry6 registry = new PadlockLockRegistry6(client, registryKey, Duration.ofMillis(200));
        Lock lock = registry.obtain("short");
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("You do not own lock");
        lock.lock();
        await().atMost(Duration.ofSeconds(30)).until(() -> admin.commands().exists(registryKey + ":short") == 0);
        assertThatThrownBy(lock::unlock).isInstanceOf(ConcurrentModificationException.class)
                .hasMessageContaining("Lock was released in the store due to expiration");
        assertThatThrownBy(lock::unlock).as("and the hold is gone locally too").isInstanceOf(IllegalStateException.class);
    }

    @Test
    void renewLockSetsTheLeaseOfAHeldLockAndFailsForAFreeOne(RedisAdmin admin) {
        PadlockLockRegistry6 registry = new PadlockLockRegistry6(client, registryKey, Duration.ofSeconds(1));
        Lock lock = registry.obtain("renewed");
        assertThatThrownBy(() -> registry.renewLock("renewed")).isInstanceOf(IllegalStateException.class);
        lock.lock();
        registry.renewLock("renewed", Duration.ofSeconds(30));
        assertThat(admin.commands().pttl(registryKey + ":renewed")).isGreaterThan(20_000);
        registry.renewLock("renewed"); // the registry's 1 s: an extension, which never shortens a lease
        assertThat(admin.commands().pttl(registryKey + ":renewed")).as("still the longer 30 s").isGreaterThan(20_000);
        assertThat(admin.commands().hvals(registryKey + ":renewed")).containsExactly("1");
        lock.unlock();
        assertThatThrownBy(() -> registry.renewLock("renewed")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void expireUnusedOlderThanDropsOnlyLocksNobodyHolds() {
        PadlockLockRegistry6 registry = new PadlockLockRegistry6(client, registryKey);
        Lock held = registry.obtain("held");
        Lock idle = registry.obtain("idle");
        held.lock();
        registry.expireUnusedOlderThan(0);
        assertThat(registry.obtain("held")).isSameAs(held);
        assertThat(registry.obtain("idle")).isNotSameAs(idle);
        held.unlock();
    }

    @Test
    void executeLockedRunsUnderTheLock(RedisAdmin admin) throws Exception {
        PadlockLockRegistry6 registry = new PadlockLockRegistry6(client, registryKey);
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
        PadlockLockRegistry6 registry = new PadlockLockRegistry6(closing, registryKey);
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
