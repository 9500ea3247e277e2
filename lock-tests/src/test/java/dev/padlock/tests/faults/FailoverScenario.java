package dev.padlock.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.LockObserver;
import dev.padlock.RLock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * A master failover while a lock is held and threads wait on it, as both failover tests run it:
 * the holder's client asks for one replica's acknowledgement, so its lock must survive; the
 * waiters, on another client, must resume; nothing may hang.
 */
final class FailoverScenario implements AutoCloseable {
    static final Duration LEASE = Duration.ofSeconds(10);
    static final int WAITERS = 3;
    /** Generous bounds that only catch hangs. */
    static final Duration RECOVERY = Duration.ofSeconds(40);

    private final ExecutorService pool = Executors.newCachedThreadPool();
    final LockClient acknowledged;
    final LockClient plain;
    final RLock held;
    final String field;
    final List<CompletableFuture<Long>> waiters = new ArrayList<>();

    /** Takes {@code name} with an acknowledged lease and starts the waiters on it. */
    FailoverScenario(LockConfig.Builder topology, LockConfig.Builder sameTopology, String name) throws Exception {
        acknowledged = LockClient.create(topology.watchdogTimeout(LEASE).commandTimeout(Duration.ofSeconds(1))
                .replicaAcknowledgement(1, Duration.ofSeconds(2)).build());
        AtomicInteger waiting = new AtomicInteger();
        LockObserver startedWaits = new LockObserver() {
            @Override
            public Object acquisitionStarted(String lockName, Kind kind, long threadId) {
                waiting.incrementAndGet();
                return null;
            }
        };
        plain = LockClient.create(sameTopology.watchdogTimeout(LEASE).commandTimeout(Duration.ofSeconds(1))
                .observer(startedWaits).build());
        held = acknowledged.getLock(name);
        field = acknowledged.getId() + ":" + Thread.currentThread().getId();
        held.lock();
        RLock wanted = plain.getLock(name);
        for (int i = 0; i < WAITERS; i++) {
            waiters.add(CompletableFuture.supplyAsync(() -> {
                try {
                    if (!wanted.tryLock(RECOVERY.toSeconds() + 20, TimeUnit.SECONDS)) {
                        throw new AssertionError("a waiter never got the lock");
                    }
                    long at = System.nanoTime();
                    wanted.unlock();
                    return at;
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }, pool));
        }
        // every waiter has called tryLock: the lock is held, so each waits (its first attempt may still be
        // out when the failover begins, which the waiters must ride through as well)
        await("the waiters waiting").atMost(RECOVERY).pollInterval(Duration.ofMillis(10))
                .until(() -> waiting.get() >= WAITERS);
    }

    /**
     * After the failover: the acknowledged lock is still held on the new master ({@code
     * heldOnNewMaster}), the holder still sees it and unlocks it, every waiter then gets the lock,
     * and a new lock works.
     */
    void checkRecovery(BooleanSupplier heldOnNewMaster, String freshName) throws Exception {
        assertThat(heldOnNewMaster.getAsBoolean()).as("the acknowledged lock survived the failover").isTrue();
        long start = System.nanoTime();
        await("the holder sees its lock again").atMost(RECOVERY).pollInSameThread()
                .ignoreExceptions().until(held::isHeldByCurrentThread);
        System.out.printf("holder reached the new master %d ms after the failover%n", millisSince(start));
        await("the holder's unlock").atMost(RECOVERY).pollInSameThread().ignoreExceptions().until(() -> {
            held.unlock();
            return true;
        });
        long unlockedAt = System.nanoTime();
        for (CompletableFuture<Long> waiter : waiters) {
            long at = waiter.get(RECOVERY.toSeconds(), TimeUnit.SECONDS);
            System.out.printf("a waiter got the lock %d ms after the unlock%n",
                    TimeUnit.NANOSECONDS.toMillis(Math.max(0, at - unlockedAt)));
        }
        RLock fresh = plain.getLock(freshName);
        assertThat(fresh.tryLock(RECOVERY.toSeconds(), 10, TimeUnit.SECONDS)).as("a new lock on the new master").isTrue();
        fresh.unlock();
    }

    private static long millisSince(long start) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    @Override
    public void close() {
        pool.shutdownNow();
        acknowledged.close();
        plain.close();
    }
}
