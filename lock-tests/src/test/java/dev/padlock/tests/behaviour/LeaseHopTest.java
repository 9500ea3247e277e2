package dev.padlock.tests.behaviour;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.LockClient;
import dev.padlock.LockLease;
import dev.padlock.RLock;
import dev.padlock.tests.support.Clients;
import dev.padlock.testing.junit.RedisTest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Leases hop between threads (issue 27): each is acquired on one executor, used and released on
 * another (platform threads, the common pool, virtual threads on JDK 21+), by workers of two
 * clients contending on a few locks. No hop may meet an {@link IllegalMonitorStateException}, and
 * no two leases may hold one lock at once. {@code -Dpadlock.hop.cycles} sets the number of
 * cycles (the closing note's million); CI runs a few thousand.
 */
@RedisTest
class LeaseHopTest {
    private static final int CYCLES = Integer.getInteger("padlock.hop.cycles", 2_000);
    private static final int WORKERS = 8;
    private static final int LOCKS = 3;

    @RegisterExtension
    final Clients clients = new Clients();

    @Test
    void leasesHopAcrossThreadsWithNoMonitorErrorAndNoDoubleHolder() throws Exception {
        List<LockClient> two = List.of(clients.open(), clients.open());
        String name = Clients.uniqueName("hop");
        // more platform threads than workers: a blocked acquire never starves the release it waits for
        ExecutorService platform = Executors.newFixedThreadPool(2 * WORKERS + 2);
        ExecutorService workerThreads = Executors.newFixedThreadPool(WORKERS);
        ExecutorService virtual = virtualThreads();
        List<Executor> blocking = new ArrayList<>(List.of(platform));
        if (virtual != null) {
            blocking.add(virtual);
        }
        List<Executor> executors = new ArrayList<>(blocking);
        executors.add(CompletableFuture.delayedExecutor(0, TimeUnit.MILLISECONDS)); // the common pool
        AtomicInteger[] holders = new AtomicInteger[LOCKS];
        for (int i = 0; i < LOCKS; i++) {
            holders[i] = new AtomicInteger();
        }
        AtomicLong cycles = new AtomicLong();
        AtomicInteger doubleHolders = new AtomicInteger();
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        for (int w = 0; w < WORKERS; w++) {
            int worker = w;
            workers.add(CompletableFuture.runAsync(() -> {
                for (int cycle = worker; cycle < CYCLES; cycle += WORKERS) {
                    int which = cycle % LOCKS;
                    RLock lock = two.get(cycle % 2).getLock(name + ":" + which);
                    Executor acquireOn = blocking.get(cycle % blocking.size());
                    Executor releaseOn = executors.get((cycle / executors.size() + 1) % executors.size());
                    CompletableFuture<LockLease> acquired = cycle % 3 == 0 ? lock.acquireAsync()
                            : CompletableFuture.supplyAsync(lock::acquire, acquireOn);
                    acquired.thenApplyAsync(lease -> {
                        if (holders[which].incrementAndGet() != 1) {
                            doubleHolders.incrementAndGet();
                        }
                        return lease;
                    }, acquireOn).thenAcceptAsync(lease -> {
                        holders[which].decrementAndGet();
                        lease.release(); // an IllegalMonitorStateException fails the worker
                        cycles.incrementAndGet();
                    }, releaseOn).join();
                }
            }, workerThreads));
        }
        CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(10, TimeUnit.MINUTES);
        platform.shutdownNow();
        workerThreads.shutdownNow();
        if (virtual != null) {
            virtual.shutdownNow();
        }
        System.out.printf("lease hops: %d cycles over %d executors%n", cycles.get(), executors.size());
        assertThat(cycles.get()).isEqualTo(CYCLES);
        assertThat(doubleHolders.get()).isZero();
        for (int i = 0; i < LOCKS; i++) {
            assertThat(two.get(0).getLock(name + ":" + i).isLocked()).isFalse();
        }
    }

    /** A virtual-thread-per-task executor on JDK 21+, else null. */
    private static ExecutorService virtualThreads() throws ReflectiveOperationException {
        if (Runtime.version().feature() < 21) {
            return null;
        }
        return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
    }
}
