package dev.padlock.tests.interop;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.tests.support.Redissons;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * Padlock and a real Redisson (the version in the pom) on the same lock names: they exclude
 * each other, write the same hash shape, wake each other's waiters, and together keep a
 * non-atomic counter exact.
 *
 * <p>Redisson's unlock also leaves a {@code redisson_unlock_latch...} key behind, so this class
 * makes no assertion about stray keys once Redisson has run.
 */
@RedisTest
class RedissonInteropTest {

    /** A hash field as both libraries write it: {@code <uuid>:<threadId>}. */
    private static final Pattern OWNER_FIELD = Pattern.compile(
            "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}:\\d+");
    /** The bound a cross-library wake-up must beat; the lease it would otherwise wait out is 30 s. */
    private static final Duration WAKE_UP_BOUND = Duration.ofSeconds(5);
    /** Upper bound for anything that should finish quickly: catches hangs only. */
    private static final Duration HANG = Duration.ofSeconds(30);

    private static RedissonClient redisson;

    private LockClient padlock;
    private ExecutorService pool;

    @BeforeAll
    static void startRedisson(RedisEndpoint redis) {
        redisson = Redissons.open(redis.uri());
    }

    @AfterAll
    static void stopRedisson() {
        Redissons.close(redisson);
    }

    @BeforeEach
    void open(RedisEndpoint redis) {
        padlock = LockClient.connect(redis.uri());
        pool = Executors.newCachedThreadPool();
    }

    @AfterEach
    void close() throws InterruptedException {
        pool.shutdownNow();
        boolean terminated = pool.awaitTermination(HANG.toSeconds(), SECONDS);
        padlock.close();
        assertTrue(terminated, "test threads did not end");
    }

    @Test
    void aLockHeldByRedissonExcludesPadlockAndViceVersa() {
        String name = uniqueName("interop:exclusion");
        org.redisson.api.RLock theirs = redisson.getLock(name);
        RLock ours = padlock.getLock(name);

        // Same JVM thread, same thread id: only the client id tells the two owners apart.
        theirs.lock();
        try {
            assertFalse(ours.tryLock(), "Padlock took a lock Redisson holds");
            assertTrue(ours.isLocked());
            assertFalse(ours.isHeldByCurrentThread());
            assertEquals(0, ours.getHoldCount());
            assertTrue(theirs.isHeldByCurrentThread(), "Padlock's failed attempt disturbed Redisson's hold");
            assertEquals(1, theirs.getHoldCount());
        } finally {
            theirs.unlock();
        }

        assertTrue(ours.tryLock(), "Padlock could not take the lock Redisson released");
        try {
            assertFalse(theirs.tryLock(), "Redisson took a lock Padlock holds");
            assertTrue(theirs.isLocked());
            assertFalse(theirs.isHeldByCurrentThread());
            assertTrue(ours.isHeldByCurrentThread(), "Redisson's failed attempt disturbed Padlock's hold");
            assertEquals(1, ours.getHoldCount());
        } finally {
            ours.unlock();
        }

        assertTrue(theirs.tryLock(), "Redisson could not take the lock Padlock released");
        theirs.unlock();
        assertFalse(ours.isLocked());
    }

    /** Padlock writes keys and arguments with its own exact-size UTF-8 codec: the bytes are Redisson's. */
    @Test
    void aNameOutsideAsciiIsTheSameLockForBoth(RedisAdmin admin) {
        String name = uniqueName("interop:ordres-\u00e9t\u00e9-\u65e5\u672c-\ud83d\udd12");
        org.redisson.api.RLock theirs = redisson.getLock(name);
        RLock ours = padlock.getLock(name);

        ours.lock();
        try {
            assertTrue(theirs.isLocked());
            assertFalse(theirs.tryLock(), "Redisson took a lock Padlock holds");
            assertEquals(1, admin.commands().hlen(name));
        } finally {
            ours.unlock();
        }
        theirs.lock();
        try {
            assertFalse(ours.tryLock(), "Padlock took a lock Redisson holds");
        } finally {
            theirs.unlock();
        }
        assertEquals(0, admin.commands().exists(name));
    }

    @Test
    void aLeaseIsAnOrdinaryHolderForRedisson(RedisAdmin admin) throws Exception {
        String name = uniqueName("interop:lease");
        org.redisson.api.RLock theirs = redisson.getLock(name);
        RLock ours = padlock.getLock(name);

        dev.padlock.LockLease lease = ours.acquire();
        try {
            assertTrue(theirs.isLocked());
            assertFalse(theirs.tryLock(), "Redisson took a lock a lease holds");
            assertEquals(1, admin.commands().hlen(name));
            // Redisson waits on the unlock channel, and wakes when the lease is released from another thread
            Future<Boolean> waiting = pool.submit(() -> theirs.tryLock(HANG.toSeconds(), SECONDS));
            pool.submit(lease::release).get(HANG.toSeconds(), SECONDS);
            assertTrue(waiting.get(WAKE_UP_BOUND.toSeconds() + HANG.toSeconds(), SECONDS));
            assertFalse(ours.tryAcquire(Duration.ZERO).isPresent(), "a lease taken while Redisson holds");
            pool.submit(() -> theirs.forceUnlock()).get(HANG.toSeconds(), SECONDS);
        } finally {
            lease.close();
        }
    }

    @Test
    void bothWriteTheSameHashShape(RedisAdmin admin) {
        String name = uniqueName("interop:shape");
        long threadId = Thread.currentThread().getId();
        org.redisson.api.RLock theirs = redisson.getLock(name);
        RLock ours = padlock.getLock(name);

        theirs.lock();
        theirs.lock();
        Map<String, String> redissonHash;
        long redissonTtl;
        try {
            assertEquals("hash", admin.commands().type(name));
            redissonHash = admin.commands().hgetall(name);
            redissonTtl = admin.commands().pttl(name);
        } finally {
            theirs.unlock();
            theirs.unlock();
        }

        ours.lock();
        ours.lock();
        Map<String, String> padlockHash;
        long padlockTtl;
        try {
            assertEquals("hash", admin.commands().type(name));
            padlockHash = admin.commands().hgetall(name);
            padlockTtl = admin.commands().pttl(name);
        } finally {
            ours.unlock();
            ours.unlock();
        }
        System.out.printf("Redisson wrote %s (pttl %d ms); Padlock wrote %s (pttl %d ms)%n",
                redissonHash, redissonTtl, padlockHash, padlockTtl);

        assertEquals(Map.of(redisson.getId() + ":" + threadId, "2"), redissonHash);
        assertEquals(Map.of(padlock.getId() + ":" + threadId, "2"), padlockHash);
        for (String field : List.of(redissonHash.keySet().iterator().next(), padlockHash.keySet().iterator().next())) {
            assertTrue(OWNER_FIELD.matcher(field).matches(), () -> "not <uuid>:<threadId>: " + field);
        }
        assertNotEquals(redisson.getId(), padlock.getId());
        // Both use a 30 s watchdog lease by default.
        assertTrue(redissonTtl > 0 && redissonTtl <= 30_000, "Redisson pttl " + redissonTtl);
        assertTrue(padlockTtl > 0 && padlockTtl <= 30_000, "Padlock pttl " + padlockTtl);
        assertFalse(ours.isLocked());
        assertEquals(0, admin.commands().exists(name));
    }

    @Test
    void anUnlockByRedissonWakesAPadlockWaiter(RedisAdmin admin) throws Exception {
        String name = uniqueName("interop:wake-padlock");
        org.redisson.api.RLock theirs = redisson.getLock(name);
        RLock ours = padlock.getLock(name);

        theirs.lock(30, SECONDS);
        long released;
        Future<Long> waiter;
        try {
            long pttlBefore = admin.commandStats().calls("pttl");
            waiter = pool.submit(acquireAndRelease(() -> ours.tryLock(10, 30, SECONDS), ours::unlock));
            awaitBlockedWaiter(admin, name, pttlBefore, waiter);
        } finally {
            released = System.nanoTime();
            theirs.unlock();
        }
        long latency = waiter.get(HANG.toSeconds(), SECONDS) - released;
        System.out.printf("Redisson unlock -> Padlock waiter acquired: %.2f ms%n", latency / 1e6);
        assertTrue(latency < WAKE_UP_BOUND.toNanos(),
                "Padlock waiter woke " + NANOSECONDS.toMillis(latency) + " ms after Redisson's unlock");
    }

    @Test
    void anUnlockByPadlockWakesARedissonWaiter(RedisAdmin admin) throws Exception {
        String name = uniqueName("interop:wake-redisson");
        org.redisson.api.RLock theirs = redisson.getLock(name);
        RLock ours = padlock.getLock(name);

        ours.lock(30, SECONDS);
        long released;
        Future<Long> waiter;
        try {
            long pttlBefore = admin.commandStats().calls("pttl");
            waiter = pool.submit(acquireAndRelease(() -> theirs.tryLock(10, 30, SECONDS), theirs::unlock));
            awaitBlockedWaiter(admin, name, pttlBefore, waiter);
        } finally {
            released = System.nanoTime();
            ours.unlock();
        }
        long latency = waiter.get(HANG.toSeconds(), SECONDS) - released;
        System.out.printf("Padlock unlock -> Redisson waiter acquired: %.2f ms%n", latency / 1e6);
        assertTrue(latency < WAKE_UP_BOUND.toNanos(),
                "Redisson waiter woke " + NANOSECONDS.toMillis(latency) + " ms after Padlock's unlock");
    }

    @Test
    void mixedContentionKeepsANonAtomicCounterExact(RedisAdmin admin, RedisEndpoint redis) throws Exception {
        String name = uniqueName("interop:mixed");
        String counter = name + ":counter";
        int threadsPerLibrary = 3;
        int iterations = 40;
        admin.commands().set(counter, "0");
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);

        try (LockClient secondPadlock = LockClient.connect(redis.uri())) {
            List<Callable<Void>> workers = new ArrayList<>();
            for (int t = 0; t < threadsPerLibrary; t++) {
                LockClient client = t % 2 == 0 ? padlock : secondPadlock;
                RLock ours = client.getLock(name);
                workers.add(incrementer("padlock-" + t, ours::tryLock, ours::unlock,
                        admin, counter, iterations, inside, overlaps, start));
                org.redisson.api.RLock theirs = redisson.getLock(name);
                workers.add(incrementer("redisson-" + t, theirs::tryLock, theirs::unlock,
                        admin, counter, iterations, inside, overlaps, start));
            }
            List<Future<Void>> running = new ArrayList<>();
            for (Callable<Void> worker : workers) {
                running.add(pool.submit(worker));
            }
            long began = System.nanoTime();
            start.countDown();
            for (Future<Void> worker : running) {
                worker.get(60, SECONDS);
            }
            System.out.printf("Mixed contention: %d lock cycles in %d ms%n",
                    workers.size() * iterations, NANOSECONDS.toMillis(System.nanoTime() - began));
        }

        assertEquals(0, overlaps.get(), "threads were inside the lock at the same time");
        assertEquals(String.valueOf(2 * threadsPerLibrary * iterations), admin.commands().get(counter));
        assertEquals(0, admin.commands().exists(name), "the lock is still held");
    }

    // ---- helpers ----

    /** Redisson's and Padlock's timed tryLock, behind one shape. */
    @FunctionalInterface
    private interface TimedTryLock {
        boolean tryLock(long waitTime, TimeUnit unit) throws InterruptedException;
    }

    @FunctionalInterface
    private interface Attempt {
        boolean call() throws InterruptedException;
    }

    /** Takes the lock, notes when, releases it; returns the {@code nanoTime} of acquisition. */
    private static Callable<Long> acquireAndRelease(Attempt acquire, Runnable release) {
        return () -> {
            boolean acquired = acquire.call();
            long at = System.nanoTime();
            if (!acquired) {
                throw new AssertionError("the waiter was not woken within its 10 s wait time");
            }
            release.run();
            return at;
        };
    }

    /**
     * Waits until the waiter is subscribed to the lock's unlock channel and has made a failed
     * attempt (each failed attempt calls {@code PTTL} in the acquire script, and nothing else
     * tries to acquire meanwhile), so that the release below has to wake it.
     */
    private static void awaitBlockedWaiter(RedisAdmin admin, String name, long pttlBefore, Future<?> waiter) {
        String channel = "redisson_lock__channel:{" + name + "}";
        await("waiter subscribed to " + channel + " after a failed attempt")
                .atMost(HANG)
                .pollInterval(Duration.ofMillis(10))
                .failFast("the waiter ended before the release", waiter::isDone)
                .until(() -> admin.commands().pubsubNumsub(channel).getOrDefault(channel, 0L) >= 1
                        && admin.commandStats().calls("pttl") > pttlBefore);
    }

    /**
     * A worker that does {@code iterations} read-modify-writes (GET, then SET value + 1) of
     * {@code counter} under the lock, bounded by a 20 s wait per acquisition.
     */
    private static Callable<Void> incrementer(String who, TimedTryLock tryLock, Runnable unlock, RedisAdmin admin,
            String counter, int iterations, AtomicInteger inside, AtomicInteger overlaps, CountDownLatch start) {
        return () -> {
            if (!start.await(HANG.toSeconds(), SECONDS)) {
                throw new AssertionError(who + ": no start signal");
            }
            for (int i = 0; i < iterations; i++) {
                if (!tryLock.tryLock(20, SECONDS)) {
                    throw new AssertionError(who + ": lock not acquired within 20 s at iteration " + i);
                }
                try {
                    if (inside.incrementAndGet() != 1) {
                        overlaps.incrementAndGet();
                    }
                    long value = Long.parseLong(admin.commands().get(counter));
                    admin.commands().set(counter, String.valueOf(value + 1));
                } finally {
                    inside.decrementAndGet();
                    unlock.run();
                }
            }
            return null;
        };
    }

    private static String uniqueName(String prefix) {
        return prefix + ":" + UUID.randomUUID();
    }
}
