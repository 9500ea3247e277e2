package dev.padlock.tests.kinds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.testing.CommandStats;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import dev.padlock.tests.support.Contention;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The spin lock: waits by back-off, never by pub/sub; same format on Redis as RLock. */
@RedisTest
class SpinLockTest {
    @RegisterExtension
    final Clients clients = new Clients();

    @Test
    void spinningThreadsOfTwoClientsKeepANonAtomicCounterExactWithoutSubscribing(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("spin");
        String counter = name + ":counter";
        RLock first = clients.open().getSpinLock(name);
        RLock second = clients.open().getSpinLock(name);
        int threads = 6;
        int rounds = 30;
        CommandStats before = admin.commandStats();
        Contention.run(Executors.newFixedThreadPool(threads), threads, task -> {
            RLock lock = task % 2 == 0 ? first : second;
            for (int i = 0; i < rounds; i++) {
                lock.lock();
                try {
                    Contention.incrementNonAtomically(admin.commands(), counter);
                } finally {
                    lock.unlock();
                }
            }
        });
        CommandStats used = CommandStats.delta(before, admin.commandStats());
        assertThat(admin.commands().get(counter)).isEqualTo(Integer.toString(threads * rounds));
        assertThat(used.calls("subscribe") + used.calls("ssubscribe") + used.calls("psubscribe"))
                .as("no SUBSCRIBE of any kind").isZero();
        assertThat(admin.commands().exists(name)).isZero();
    }

    @Test
    void tryLockOnAHeldSpinLockGivesUpAfterAboutTheWait() throws Exception {
        String name = Clients.uniqueName("spin-wait");
        RLock holder = clients.open().getSpinLock(name);
        RLock waiter = clients.open().getSpinLock(name);
        holder.lock(30, TimeUnit.SECONDS);
        long start = System.nanoTime();
        assertThat(waiter.tryLock(300, TimeUnit.MILLISECONDS)).isFalse();
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        // never before the wait is over (however fast the machine); the upper bound only catches a wait
        // that runs into the 30 s lease, generous for a busy machine
        assertThat(elapsed).isGreaterThanOrEqualTo(300).isLessThan(10_000);
        holder.unlock();
    }

    @Test
    void aSpinWaiterGetsTheLockSoonAfterTheUnlockNotAtTheEndOfTheLease(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("spin-wake");
        RLock holder = clients.open().getSpinLock(name);
        RLock waiter = clients.open().getSpinLock(name);
        holder.lock(30, TimeUnit.SECONDS);
        // from here only the waiter sends scripts: the holder's lease is fixed, both clients are registered
        long scriptsBefore = scriptCalls(admin);
        CompletableFuture<Long> acquiredAt = CompletableFuture.supplyAsync(() -> {
            try {
                assertThat(waiter.tryLock(20, 30, TimeUnit.SECONDS)).isTrue();
                long at = System.nanoTime();
                waiter.unlock();
                return at;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        // the waiter is spinning: it tried and backed off a few times
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10))
                .until(() -> scriptCalls(admin) - scriptsBefore >= 3);
        long unlockedAt = System.nanoTime();
        holder.unlock();
        long millis = TimeUnit.NANOSECONDS.toMillis(acquiredAt.get(30, TimeUnit.SECONDS) - unlockedAt);
        System.out.printf("spin waiter acquired %d ms after the unlock (lease 30 s)%n", millis);
        // up to 128 ms of back-off when it works; the bound, generous for a busy machine, stays far
        // under the 30 s lease a waiter that missed the unlock would wait out
        assertThat(millis).isLessThan(10_000);
    }

    @Test
    void aSpinLockAndAnRLockOfOneNameExcludeEachOther() throws Exception {
        String name = Clients.uniqueName("spin-and-plain");
        LockClient client = clients.open();
        RLock spin = client.getSpinLock(name);
        RLock plain = clients.open().getLock(name);
        assertThat(spin.tryLockAsync(0, 10, TimeUnit.SECONDS, 1L).get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(plain.tryLockAsync(0, 10, TimeUnit.SECONDS, 1L).get(5, TimeUnit.SECONDS)).isFalse();
        spin.unlockAsync(1L).get(5, TimeUnit.SECONDS);
        assertThat(plain.tryLockAsync(0, 10, TimeUnit.SECONDS, 1L).get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(spin.tryLockAsync(0, 10, TimeUnit.SECONDS, 2L).get(5, TimeUnit.SECONDS)).isFalse();
        plain.unlockAsync(1L).get(5, TimeUnit.SECONDS);
    }

    private static long scriptCalls(RedisAdmin admin) {
        CommandStats stats = admin.commandStats();
        return stats.calls("evalsha") + stats.calls("eval");
    }
}
