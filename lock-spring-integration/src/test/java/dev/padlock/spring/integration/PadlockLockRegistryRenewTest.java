package dev.padlock.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.padlock.LockClient;
import dev.padlock.spi.PadlockInfo;
import dev.padlock.testing.CommandStats;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.integration.support.locks.DistributedLock;

/** {@link PadlockLockRegistry#renewLock}: it only extends the lease of a hold this process has (issue 37). */
@RedisTest
class PadlockLockRegistryRenewTest {
    private static final int ROUNDS = 200;
    private LockClient client;
    private String registryKey;
    private ExecutorService holder;
    private ExecutorService renewer;

    @BeforeEach
    void open(RedisEndpoint redis) {
        client = LockClient.connect(redis.uri());
        registryKey = "renew-" + UUID.randomUUID();
        holder = Executors.newSingleThreadExecutor();
        renewer = Executors.newSingleThreadExecutor();
    }

    @AfterEach
    void close(RedisAdmin admin) {
        holder.shutdownNow();
        renewer.shutdownNow();
        client.close();
        assertThat(admin.commands().keys(registryKey + "*")).as("nothing left behind").isEmpty();
    }

    @Test
    void renewLockRacingUnlockLeavesNothingOnRedis(RedisAdmin admin) throws Exception {
        PadlockLockRegistry registry = new PadlockLockRegistry(client, registryKey, Duration.ofSeconds(30));
        int leftAfterUnlock = 0;
        for (int round = 0; round < ROUNDS; round++) {
            String key = "race-" + round; // a key a round: a round cannot inherit the last one's state
            DistributedLock lock = registry.obtain(key);
            holder.submit(() -> lock.lock()).get(30, TimeUnit.SECONDS);
            CyclicBarrier start = new CyclicBarrier(2);
            Future<Boolean> leftOver = holder.submit(() -> {
                start.await(30, TimeUnit.SECONDS);
                lock.unlock();
                return admin.commands().exists(registryKey + ":" + key) == 1;
            });
            Future<?> renewal = renewer.submit(() -> {
                start.await(30, TimeUnit.SECONDS);
                try {
                    registry.renewLock(key);
                } catch (IllegalStateException unlockedFirst) {
                    // the unlock won the race: nothing to renew
                }
                return null;
            });
            renewal.get(30, TimeUnit.SECONDS);
            if (leftOver.get(30, TimeUnit.SECONDS)) {
                leftAfterUnlock++;
            }
        }
        assertThat(leftAfterUnlock).as("rounds of %s whose key was still on Redis when unlock() returned", ROUNDS)
                .isZero();
    }

    @Test
    void renewLockNeverTakesASecondHold(RedisAdmin admin) {
        PadlockLockRegistry registry = new PadlockLockRegistry(client, registryKey, Duration.ofSeconds(10));
        DistributedLock lock = registry.obtain("counted");
        lock.lock();
        CommandStats before = admin.commandStats();
        registry.renewLock("counted");
        registry.renewLock("counted", Duration.ofSeconds(60));
        CommandStats renewing = CommandStats.delta(before, admin.commandStats());
        assertThat(renewing.calls("hincrby") + renewing.calls("hset") + renewing.calls("hdel"))
                .as("no hold taken or dropped: %s", renewing).isZero();
        assertThat(admin.commands().hvals(registryKey + ":counted")).containsExactly("1");
        assertThat(admin.commands().pttl(registryKey + ":counted")).isGreaterThan(30_000);
        lock.unlock();
        assertThat(admin.commands().exists(registryKey + ":counted")).isZero();
    }

    @Test
    void renewLockAfterExpireUnusedFindsTheHolder(RedisAdmin admin) {
        PadlockLockRegistry registry = new PadlockLockRegistry(client, registryKey, Duration.ofSeconds(10));
        DistributedLock lock = registry.obtain("dropped");
        registry.expireUnusedOlderThan(0); // nobody holds it: dropped from the cache
        lock.lock(); // through the object the caller kept
        registry.renewLock("dropped", Duration.ofSeconds(60));
        assertThat(admin.commands().pttl(registryKey + ":dropped")).isGreaterThan(30_000);
        registry.expireUnusedOlderThan(0);
        registry.renewLock("dropped", Duration.ofSeconds(60));
        lock.unlock();
        assertThatThrownBy(() -> registry.renewLock("dropped")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void renewLockWhenNobodyHereHoldsFailsAndChangesNothing(RedisAdmin admin) throws Exception {
        PadlockLockRegistry registry = new PadlockLockRegistry(client, registryKey, Duration.ofSeconds(10));
        try (LockClient other = LockClient.connect(admin.uri())) {
            DistributedLock theirs = new PadlockLockRegistry(other, registryKey, Duration.ofSeconds(10)).obtain("theirs");
            theirs.lock();
            CommandStats before = admin.commandStats();
            assertThatThrownBy(() -> registry.renewLock("theirs", Duration.ofSeconds(60)))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("Could not renew mutex");
            assertThat(CommandStats.delta(before, admin.commandStats()).calls("evalsha")).as("nothing sent").isZero();
            assertThat(admin.commands().pttl(registryKey + ":theirs")).isLessThanOrEqualTo(10_000);
            theirs.unlock();
        }
    }

    @Test
    void aWatchdogLeaseRenewedByRenewLockIsStillRenewedByTheWatchdog(RedisAdmin admin) {
        PadlockLockRegistry registry = new PadlockLockRegistry(client, registryKey);
        DistributedLock lock = registry.obtain("watched");
        lock.lock();
        assertThat(PadlockInfo.renewedLeases(client)).hasValue(1);
        registry.renewLock("watched");
        registry.renewLock("watched", Duration.ofSeconds(60));
        assertThat(PadlockInfo.renewedLeases(client)).as("the watchdog still renews it").hasValue(1);
        assertThat(admin.commands().hvals(registryKey + ":watched")).containsExactly("1");
        lock.unlock();
        assertThat(PadlockInfo.renewedLeases(client)).hasValue(0);
    }
}
