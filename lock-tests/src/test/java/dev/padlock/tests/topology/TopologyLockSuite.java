package dev.padlock.tests.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RFencedLock;
import dev.padlock.RLock;
import dev.padlock.RReadWriteLock;
import dev.padlock.tests.support.Contention;
import dev.padlock.tests.support.CounterWorker;
import dev.padlock.tests.support.CounterWorkers;
import dev.padlock.tests.support.Renewals;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The core lock checks, run against one topology by each subclass (Sentinel, Cluster): reentrancy
 * and the exact hash, waiting and wake-up, the watchdog, every kind of the family, and the
 * multi-process exact counter. Names are chosen by the subclass so that, on a Cluster, locks are
 * spread over every master.
 */
abstract class TopologyLockSuite {
    private final List<LockClient> open = new ArrayList<>();
    private final ExecutorService pool = Executors.newCachedThreadPool();

    /** A config builder pointed at the topology. */
    abstract LockConfig.Builder topology();

    /** What {@link CounterWorker} takes to reach the topology. */
    abstract String workerTopology();

    /** A data connection to the topology (the master of each key on a Cluster). */
    abstract RedisClusterCommands<String, String> data();

    /** {@code count} fresh lock names; on a Cluster, they cover every master. */
    abstract List<String> names(String prefix, int count);

    LockClient open(UnaryOperator<LockConfig.Builder> settings) {
        LockClient client = LockClient.create(settings.apply(topology().commandTimeout(Duration.ofSeconds(3))).build());
        open.add(client);
        return client;
    }

    @AfterEach
    void closeClients() {
        open.forEach(LockClient::close);
        open.clear();
        pool.shutdownNow();
    }

    @Test
    void aReentrantLockWritesTheExactHashAndIsGoneAfterTheLastUnlock() {
        LockClient client = open(b -> b);
        for (String name : names("reentrant", 6)) {
            RLock lock = client.getLock(name);
            lock.lock();
            lock.lock(10, TimeUnit.SECONDS);
            String field = client.getId() + ":" + Thread.currentThread().getId();
            assertThat(data().hgetall(name)).containsExactly(java.util.Map.entry(field, "2"));
            assertThat(lock.remainTimeToLive()).isPositive();
            lock.unlock();
            assertThat(lock.getHoldCount()).isEqualTo(1);
            lock.unlock();
            assertThat(data().exists(name)).isZero();
        }
    }

    @Test
    void aWaiterOfAnotherClientWakesOnTheUnlockNotAtTheEndOfTheLease() throws Exception {
        LockClient holderClient = open(b -> b);
        LockClient waiterClient = open(b -> b);
        for (String name : names("wake", 6)) {
            RLock holder = holderClient.getLock(name);
            RLock waiter = waiterClient.getLock(name);
            holder.lock(30, TimeUnit.SECONDS);
            CompletableFuture<Long> acquiredAt = CompletableFuture.supplyAsync(() -> {
                assertThat(Contention.tryLock(waiter, 20_000)).isTrue();
                long at = System.nanoTime();
                waiter.unlock();
                return at;
            }, pool);
            // the holder's 30 s lease keeps it out: a state, not a race (and time for the waiter to wait)
            await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(10)).until(() -> !acquiredAt.isDone());
            long unlockedAt = System.nanoTime();
            holder.unlock();
            long millis = TimeUnit.NANOSECONDS.toMillis(acquiredAt.get(30, TimeUnit.SECONDS) - unlockedAt);
            // generous for a busy machine, far from the 20-30 s a waiter left asleep waits
            assertThat(millis).as("woken by the unlock of '%s' (lease 30 s)", name).isLessThan(10_000);
        }
    }

    @Test
    void tryLockGivesUpAfterItsWait() throws Exception {
        String name = names("busy", 1).get(0);
        open(b -> b).getLock(name).lock(30, TimeUnit.SECONDS);
        long start = System.nanoTime();
        assertThat(open(b -> b).getLock(name).tryLock(300, TimeUnit.MILLISECONDS)).isFalse();
        // never before its wait; the upper bound catches a wait into the 30 s lease, generous for a busy machine
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(300L, 10_000L);
    }

    @Test
    void theWatchdogRenewsEveryHeldLeaseUntilTheUnlock() throws Exception {
        // renewed every 500 ms: a stall of a second on a busy machine loses nothing
        Renewals renewals = new Renewals();
        LockClient client = open(b -> b.watchdogTimeout(Duration.ofMillis(1_500)).observer(renewals));
        List<RLock> locks = new ArrayList<>();
        for (String name : names("watchdog", 6)) {
            RLock lock = client.getLock(name);
            lock.lock();
            locks.add(lock);
        }
        // five rounds for each of the six (at least 2 s, more than a lease), each finding its lock held
        renewals.awaitMore(6 * 5);
        assertThat(renewals.lost()).isZero();
        for (RLock lock : locks) {
            assertThat(lock.isHeldByCurrentThread()).as("%s renewed", lock.getName()).isTrue();
            lock.unlock();
        }
    }

    @Test
    void everyKindOfTheFamilyWorks() throws Exception {
        LockClient one = open(b -> b);
        LockClient two = open(b -> b);
        List<String> names = names("family", 6);
        RLock fair = one.getFairLock(names.get(0));
        fair.lock();
        assertThat(two.getFairLock(names.get(0)).tryLock(100, TimeUnit.MILLISECONDS)).isFalse();
        fair.unlock();

        RReadWriteLock rw = one.getReadWriteLock(names.get(1));
        rw.readLock().lock();
        assertThat(two.getReadWriteLock(names.get(1)).readLock().tryLock()).isTrue();
        two.getReadWriteLock(names.get(1)).readLock().unlock();
        assertThat(two.getReadWriteLock(names.get(1)).writeLock().tryLock(100, TimeUnit.MILLISECONDS)).isFalse();
        rw.readLock().unlock();

        RFencedLock fenced = one.getFencedLock(names.get(2));
        long first = fenced.lockAndGetToken();
        fenced.unlock();
        assertThat(two.getFencedLock(names.get(2)).lockAndGetToken()).isGreaterThan(first);
        two.getFencedLock(names.get(2)).unlock();

        RLock spin = one.getSpinLock(names.get(3));
        spin.lock();
        assertThat(two.getSpinLock(names.get(3)).tryLock(100, TimeUnit.MILLISECONDS)).isFalse();
        spin.unlock();

        RLock multi = one.getMultiLock(one.getLock(names.get(4)), one.getLock(names.get(5)), one.getLock(names.get(0)));
        multi.lock();
        assertThat(two.getLock(names.get(5)).tryLock()).isFalse();
        multi.unlock();
        for (String name : names) {
            assertThat(data().exists(name)).as("%s left", name).isZero();
        }
    }

    @Test
    void workerProcessesKeepACounterExact(@TempDir Path logs) throws Exception {
        try (CounterWorkers workers = new CounterWorkers()) {
            workers.runExactCounter(workerTopology(), data(), 3, 3, 30, logs);
        }
    }
}
