package dev.padlock.tests.behaviour;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.internal.PadlockClient;
import dev.padlock.spi.LockKeys;
import dev.padlock.testing.CommandStats;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import dev.padlock.tests.support.Contention;
import dev.padlock.tests.support.Quiet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Owners of one client queue locally and get the lock by hand-off, within bounds. */
@RedisTest
class LocalHandOffTest {
    @RegisterExtension
    final Clients clients = new Clients();

    @Test
    void sixteenThreadsOfOneClientHandTheLockOnInAboutOneCallEach(RedisAdmin admin) throws Exception {
        PadlockClient client = (PadlockClient) clients.open();
        String name = Clients.uniqueName("cohort");
        RLock lock = client.getLock(name);
        int threads = 16;
        int rounds = 50;
        int[] counter = {0};
        AtomicInteger inside = new AtomicInteger();
        CommandStats before = admin.commandStats();
        Contention.run(Executors.newFixedThreadPool(threads), threads, task -> {
            for (int i = 0; i < rounds; i++) {
                lock.lock();
                try {
                    assertThat(inside.incrementAndGet()).isEqualTo(1);
                    counter[0]++;
                    inside.decrementAndGet();
                } finally {
                    lock.unlock();
                }
            }
        });
        CommandStats used = CommandStats.delta(before, admin.commandStats());
        int acquisitions = threads * rounds;
        double scriptCalls = (used.calls("evalsha") + used.calls("eval")) / (double) acquisitions;
        System.out.printf("16 threads, one client: %.2f script calls, %.3f publishes, %d subscribes per %d acquisitions%n",
                scriptCalls, used.calls("publish") / (double) acquisitions, used.calls("subscribe"), acquisitions);
        assertThat(counter[0]).isEqualTo(acquisitions);
        assertThat(scriptCalls).as("script calls per acquisition").isLessThanOrEqualTo(2.0);
        assertThat(used.calls("publish")).as("most releases are hand-offs, which publish nothing")
                .isLessThan(acquisitions / 4);
        assertThat(admin.commands().exists(name)).isZero();
        assertThat(client.localQueues()).isZero();
    }

    @Test
    void localWaitersGetTheLockInTheOrderTheyQueued() throws Exception {
        LockClient client = clients.open();
        RLock lock = client.getLock(Clients.uniqueName("fifo"));
        List<Long> order = new CopyOnWriteArrayList<>();
        lock.lock();
        List<Thread> waiters = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Thread thread = new Thread(() -> {
                lock.lock();
                order.add(Thread.currentThread().getId());
                lock.unlock();
            });
            thread.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> thread.getState() == Thread.State.WAITING);
            waiters.add(thread);
        }
        lock.unlock();
        for (Thread thread : waiters) {
            thread.join(30_000);
        }
        assertThat(order).containsExactlyElementsOf(waiters.stream().map(Thread::getId).toList());
    }

    @Test
    void anotherClientIsNotStarvedByALocalChain(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("not-starved");
        RLock first = clients.open().getLock(name);
        RLock second = clients.open().getLock(name);
        AtomicInteger firstCount = new AtomicInteger();
        AtomicInteger secondCount = new AtomicInteger();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                RLock lock = t % 2 == 0 ? first : second;
                AtomicInteger count = t % 2 == 0 ? firstCount : secondCount;
                done.add(pool.submit(() -> {
                    while (System.nanoTime() - end < 0) {
                        lock.lock();
                        try {
                            count.incrementAndGet();
                        } finally {
                            lock.unlock();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> future : done) {
                future.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        int total = firstCount.get() + secondCount.get();
        System.out.printf("two clients x 4 threads for 3 s: %d and %d acquisitions%n", firstCount.get(), secondCount.get());
        assertThat(Math.min(firstCount.get(), secondCount.get())).as("each client gets a fair share")
                .isGreaterThan(total / 10);
    }

    @Test
    void aLocalWaiterDoesNotWaitPastAHoldersFixedLease() throws Exception {
        LockClient client = clients.open();
        RLock lock = client.getLock(Clients.uniqueName("forgotten"));
        Thread holder = new Thread(() -> lock.lock(500, TimeUnit.MILLISECONDS)); // never unlocks
        holder.start();
        holder.join(30_000);
        long start = System.nanoTime();
        assertThat(lock.tryLock(30, 5, TimeUnit.SECONDS)).isTrue();
        long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.printf("local waiter got a lock whose holder never unlocked after %d ms (lease 500 ms)%n", waited);
        // the 500 ms lease when it works; a waiter that missed its end would wait its whole 30 s: the
        // bound between the two is generous for a busy machine
        assertThat(waited).isLessThan(10_000);
        lock.unlock();
    }

    @Test
    void aLocalWaiterGetsALockWhoseLeaseTheWatchdogFoundLost(RedisAdmin admin) throws Exception {
        // renewed every 500 ms: a stall of a second on a busy machine does not lose the lease before the DEL
        LockClient client = clients.open(b -> b.watchdogTimeout(Duration.ofMillis(1_500)));
        String name = Clients.uniqueName("lost-local");
        RLock lock = client.getLock(name);
        CompletableFuture<Void> held = new CompletableFuture<>();
        Thread holder = new Thread(() -> {
            lock.lock(); // watchdog lease, never unlocked
            held.complete(null);
        });
        holder.start();
        held.get(30, TimeUnit.SECONDS);
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                boolean acquired = lock.tryLock(60, 5, TimeUnit.SECONDS);
                if (acquired) {
                    lock.unlock();
                }
                return acquired;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        // the renewed lease keeps the waiter out: a state, not a race
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(10)).until(() -> !waiter.isDone());
        admin.commands().del(name);
        assertThat(waiter.get(30, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aLocalWaiterThatTimesOutOrIsCancelledDoesNotHoldUpTheOthers() throws Exception {
        LockClient client = clients.open();
        RLock lock = client.getLock(Clients.uniqueName("give-up"));
        lock.lock();
        CompletableFuture<Boolean> impatient = lock.tryLockAsync(200, 10_000, TimeUnit.MILLISECONDS, 101L);
        CompletableFuture<Void> cancelled = lock.lockAsync(10_000, TimeUnit.MILLISECONDS, 102L);
        CompletableFuture<Boolean> patient = lock.tryLockAsync(10_000, 10_000, TimeUnit.MILLISECONDS, 103L);
        assertThat(impatient.get(30, TimeUnit.SECONDS)).isFalse();
        assertThat(cancelled.cancel(true)).isTrue();
        lock.unlock();
        assertThat(patient.get(30, TimeUnit.SECONDS)).isTrue();
        assertThat(lock.isHeldByThread(103L)).isTrue();
        assertThat(lock.isHeldByThread(102L)).isFalse();
        lock.unlockAsync(103L).get(30, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(30)).until(() -> ((PadlockClient) client).localQueues() == 0);
    }

    /** A one-shot tryLock asks Redis, the only truth: the local view never answers it alone. */
    @Test
    void tryLockWithoutWaitAsksRedisEvenWhileAnotherOwnerOfTheClientHoldsIt(RedisAdmin admin) {
        LockClient client = clients.open(config -> config.clientRegistry(false)); // its writes are EVALSHA too
        RLock lock = client.getLock(Clients.uniqueName("refused-by-redis"));
        lock.lockAsync(10, TimeUnit.SECONDS, 1L).join();
        // the hold's since is noted once it has lasted a second (an EVALSHA of its own): after it,
        await().atMost(Duration.ofSeconds(30))
                .until(() -> admin.commands().exists(LockKeys.since(lock.getName())) > 0);
        // and quiet: a release still in flight from an earlier test on the shared server must not count
        long before = Quiet.commands(admin, "evalsha").calls("evalsha");
        assertThat(lock.tryLockAsync(0, 10, TimeUnit.SECONDS, 2L).join()).isFalse();
        assertThat(admin.commandStats().calls("evalsha")).isEqualTo(before + 1);
        lock.unlockAsync(1L).join();
    }

    @Test
    void tryLockWithoutWaitAsksRedisOnceTheLocalHoldersFixedLeaseIsOver(RedisAdmin admin) {
        LockClient client = clients.open();
        String name = Clients.uniqueName("stale-holder");
        RLock lock = client.getLock(name);
        // never unlocked; a lease no stall between these two lines outlasts
        lock.lockAsync(2_000, TimeUnit.MILLISECONDS, 1L).join();
        assertThat(lock.tryLockAsync(0, 10, TimeUnit.SECONDS, 2L).join()).as("held: refused").isFalse();
        await().atMost(Duration.ofSeconds(30)).until(() -> admin.commands().exists(name) == 0);
        assertThat(lock.tryLockAsync(0, 10, TimeUnit.SECONDS, 2L).join()).as("lease over: acquired").isTrue();
        assertThat(lock.isHeldByThread(2L)).isTrue();
        lock.unlockAsync(2L).join();
    }

    /**
     * Regression: the hand-off must run before the successor's own commands. After a SCRIPT
     * FLUSH, EVALSHA was answered NOSCRIPT and its EVAL retry ran after the successor's unlock,
     * which then found the lock not held. A successor now starts only once Redis confirmed it.
     */
    @Test
    void aHandOffRightAfterAScriptFlushStillRunsBeforeTheSuccessorsUnlock(RedisAdmin admin) throws Exception {
        LockClient client = clients.open();
        for (int round = 0; round < 5; round++) {
            RLock lock = client.getLock(Clients.uniqueName("flushed-hand-off"));
            lock.lockAsync(30, TimeUnit.SECONDS, 1L).get(30, TimeUnit.SECONDS);
            CompletableFuture<Void> successor = lock.lockAsync(30, TimeUnit.SECONDS, 2L);
            admin.scriptFlush();
            // acquire and release are loaded again, the hand-off script is not
            RLock other = client.getLock(Clients.uniqueName("warm-up"));
            other.lockAsync(30, TimeUnit.SECONDS, 3L).get(30, TimeUnit.SECONDS);
            other.unlockAsync(3L).get(30, TimeUnit.SECONDS);
            CompletableFuture<Void> released = lock.unlockAsync(1L); // its reply is not waited for:
            successor.get(30, TimeUnit.SECONDS);                      // the successor acts at once
            lock.unlockAsync(2L).get(30, TimeUnit.SECONDS); // threw IllegalMonitorStateException
            released.get(30, TimeUnit.SECONDS);
            assertThat(lock.isLocked()).isFalse();
        }
    }
}
