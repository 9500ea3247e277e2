package dev.padlock.tests.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RSemaphore;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.tests.support.Redissons;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.redisson.api.RedissonClient;

/**
 * The model of one counting semaphore that two Padlock clients and a Redisson client share: the
 * total number of permits (set and added) and the permits each acquisition holds. After every step
 * {@link #check()} holds it to Redis: the free count on Redis plus the permits held equals the
 * total, once no wait changes state meanwhile; so no permit is lost or made, and a wait that
 * ended without permits holds none.
 */
final class SemaphoreModel implements AutoCloseable {
    /** Upper bound for a step that should finish quickly: catches hangs only. */
    private static final long HANG_SECONDS = 30;

    private record Wait(CompletableFuture<Boolean> result, int permits) {
    }

    private final RedisAdmin admin;
    private final List<LockClient> clients = new ArrayList<>();
    private final RedissonClient redisson;
    private final String name = "semaphore-model:" + UUID.randomUUID();
    private boolean set;
    private long total;
    /** Permits held by each acquisition (a drain counts as one). */
    private final List<Integer> held = new ArrayList<>();
    private final List<Wait> waits = new ArrayList<>();
    /** The threads of {@link #contend}. */
    private final ExecutorService contenders = Executors.newCachedThreadPool();

    SemaphoreModel(RedisAdmin admin, String uri) {
        this.admin = admin;
        for (int i = 0; i < 2; i++) {
            clients.add(LockClient.create(LockConfig.builder().redisUri(uri).build()));
        }
        this.redisson = Redissons.open(uri);
    }

    private RSemaphore padlock(int client) {
        return clients.get(client % clients.size()).getSemaphore(name);
    }

    private org.redisson.api.RSemaphore theirs() {
        return redisson.getSemaphore(name);
    }

    void trySet(int client, int permits) {
        boolean done = client == 2 ? theirs().trySetPermits(permits) : padlock(client).trySetPermits(permits);
        assertThat(done).as("trySetPermits when %s", set ? "set already" : "never set").isEqualTo(!set);
        if (done) {
            set = true;
            total = permits;
        }
        check();
    }

    void add(int client, int permits) {
        if (client == 2) {
            theirs().addPermits(permits);
        } else {
            padlock(client).addPermits(permits);
        }
        set = true;
        total += permits;
        check();
    }

    void tryAcquire(int client, int permits) {
        settleWaits();
        boolean quiet = waits.isEmpty();
        long free = free();
        boolean taken = client == 2 ? theirs().tryAcquire(permits) : padlock(client).tryAcquire(permits);
        if (quiet) {
            assertThat(taken).as("tryAcquire(%d) with %d free and nobody waiting", permits, free).isEqualTo(free >= permits);
        }
        if (taken) {
            held.add(permits);
        }
        check();
    }

    void startWait(int client, int permits, long waitMillis) {
        waits.add(new Wait(padlock(client).tryAcquireAsync(permits, Duration.ofMillis(waitMillis)), permits));
        check();
    }

    void cancel(int pick) {
        settleWaits();
        if (!waits.isEmpty()) {
            Wait wait = waits.remove(pick % waits.size());
            wait.result().cancel(false);
            if (wait.result().isDone() && !wait.result().isCancelled() && wait.result().join()) {
                held.add(wait.permits()); // taken before the cancel
            }
        }
        check();
    }

    void release(int client, int pick) {
        settleWaits();
        if (!held.isEmpty()) {
            int permits = held.remove(pick % held.size());
            if (client == 2) {
                theirs().release(permits);
            } else {
                padlock(client).release(permits);
            }
        }
        check();
    }

    /**
     * {@code threads} threads of one Padlock client take one permit each, hold it a moment and
     * release it, {@code rounds} times, with waits of a few hundred milliseconds: with fewer
     * permits than threads, releases find this client's waiters parked and hand permits to them
     * (and to this client's waits of the model). Meanwhile the threads never hold more than the
     * permits not held before the step (none is made); afterwards {@link #check()}.
     */
    void contend(int client, int threads, int rounds) {
        settleWaits();
        RSemaphore semaphore = padlock(client);
        long spare = total - held.stream().mapToLong(Integer::longValue).sum();
        AtomicInteger inUse = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            workers.add(CompletableFuture.runAsync(() -> {
                for (int r = 0; r < rounds; r++) {
                    boolean taken;
                    try {
                        taken = semaphore.tryAcquire(1, Duration.ofMillis(300));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                    if (taken) {
                        most.accumulateAndGet(inUse.incrementAndGet(), Math::max);
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)); // work
                        inUse.decrementAndGet();
                        semaphore.release(1);
                    }
                }
            }, contenders));
        }
        CompletableFuture.allOf(workers.toArray(new CompletableFuture<?>[0])).orTimeout(HANG_SECONDS, TimeUnit.SECONDS).join();
        assertThat((long) most.get()).as("permits the threads held at once, of %d not held before", spare)
                .isLessThanOrEqualTo(Math.max(0, spare));
        check();
    }

    void drain(int client) {
        settleWaits();
        int drained = padlock(client).drainPermits();
        if (drained > 0) {
            held.add(drained);
        }
        check();
    }

    /** Moves the waits that ended to what they hold. */
    private void settleWaits() {
        for (var it = waits.iterator(); it.hasNext(); ) {
            Wait wait = it.next();
            if (wait.result().isDone()) {
                it.remove();
                if (!wait.result().isCancelled() && wait.result().join()) {
                    held.add(wait.permits());
                }
            }
        }
    }

    private long free() {
        String count = admin.commands().get(name);
        return count == null ? 0 : Long.parseLong(count);
    }

    /**
     * Free on Redis plus held equals the total. A wait's attempt (or a cancelled wait's give-back)
     * may be applied on Redis before its client learns of it: the reading is taken again until it
     * matches, and fails when it still does not after a bound that only a lost or made permit
     * reaches.
     */
    void check() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(HANG_SECONDS);
        while (true) {
            settleWaits();
            int pending = waits.size();
            long free = free();
            long heldNow = held.stream().mapToLong(Integer::longValue).sum();
            settleWaits();
            boolean stable = waits.size() == pending;
            if (stable && free + heldNow == total) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                assertThat(free + heldNow).as("free %d + held %d = total %d (waiting: %d)", free, heldNow, total, pending)
                        .isEqualTo(total);
            }
            Thread.onSpinWait();
        }
    }

    /** Ends every wait, gives every permit back and checks the total is free. */
    void finish() {
        for (Wait wait : waits) {
            wait.result().cancel(false);
        }
        for (Wait wait : waits) {
            try {
                if (wait.result().get(HANG_SECONDS, TimeUnit.SECONDS)) {
                    held.add(wait.permits());
                }
            } catch (java.util.concurrent.CancellationException cancelled) {
                // no permits
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }
        waits.clear();
        // a cancelled wait gives back what its attempt in flight took: wait until nothing changes
        for (int permits : held) {
            padlock(0).release(permits);
        }
        held.clear();
        org.awaitility.Awaitility.await("every permit back").atMost(Duration.ofSeconds(HANG_SECONDS)).until(() -> free() == total);
    }

    @Override
    public void close() {
        try {
            admin.commands().del(name);
        } finally {
            contenders.shutdownNow();
            clients.forEach(LockClient::close);
            Redissons.close(redisson);
        }
    }

    @Override
    public String toString() {
        return "semaphore " + name + ": total " + total + ", held " + held + ", waits " + waits.size();
    }
}
