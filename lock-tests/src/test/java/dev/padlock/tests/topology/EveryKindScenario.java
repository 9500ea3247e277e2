package dev.padlock.tests.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.RFencedLock;
import dev.padlock.RLock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

/**
 * Every lock kind (plain, spin, fair, write then read, read then write, fenced, multi, red) between
 * two clients, all kinds at once: a holder of {@code one} locks with the watchdog's lease, a waiter
 * of {@code two} waits, the holder keeps the lock past twice its lease (so only renewals keep it),
 * unlocks, and the waiter gets it, woken well before any lease would end. For tests that check that a way of reaching
 * Redis (an ACL user in functions mode) carries all of Padlock. Owners are explicit ids on the
 * asynchronous API; each wait is bounded.
 */
final class EveryKindScenario {
    private static final long WAIT_MS = 30_000;
    private static final long LEASE_MS = 20_000;

    private EveryKindScenario() {
    }

    /** The pairs of (holder, waiter) objects of each kind, on names starting with {@code name}. */
    static Map<String, BiFunction<LockClient, LockClient, RLock[]>> kinds(String name) {
        Map<String, BiFunction<LockClient, LockClient, RLock[]>> kinds = new LinkedHashMap<>();
        kinds.put("plain", (one, two) -> new RLock[] {one.getLock(name), two.getLock(name)});
        kinds.put("spin", (one, two) -> new RLock[] {one.getSpinLock(name + ":spin"), two.getSpinLock(name + ":spin")});
        kinds.put("fair", (one, two) -> new RLock[] {one.getFairLock(name + ":fair"), two.getFairLock(name + ":fair")});
        kinds.put("write, then read", (one, two) -> new RLock[] {one.getReadWriteLock(name + ":rw").writeLock(),
            two.getReadWriteLock(name + ":rw").readLock()});
        kinds.put("read, then write", (one, two) -> new RLock[] {one.getReadWriteLock(name + ":wr").readLock(),
            two.getReadWriteLock(name + ":wr").writeLock()});
        kinds.put("fenced", (one, two) -> new RLock[] {one.getFencedLock(name + ":fenced"),
            two.getFencedLock(name + ":fenced")});
        kinds.put("multi", (one, two) -> new RLock[] {
            one.getMultiLock(one.getLock(name + ":m1"), one.getFairLock(name + ":m2")),
            two.getMultiLock(two.getLock(name + ":m1"), two.getFairLock(name + ":m2"))});
        kinds.put("red", (one, two) -> new RLock[] {
            one.getRedLock(one.getLock(name + ":r1"), one.getLock(name + ":r2"), one.getLock(name + ":r3")),
            two.getRedLock(two.getLock(name + ":r1"), two.getLock(name + ":r2"), two.getLock(name + ":r3"))});
        return kinds;
    }

    /**
     * Runs every kind at once, each on its own names; {@code watchdog} is both clients' watchdog
     * timeout (short, so that the holders' leases are renewed several times while the waiters wait).
     */
    static void run(LockClient one, LockClient two, String name, Duration watchdog) throws Exception {
        Map<String, RLock[]> pairs = new LinkedHashMap<>();
        Map<String, CompletableFuture<Boolean>> waits = new LinkedHashMap<>();
        for (Map.Entry<String, BiFunction<LockClient, LockClient, RLock[]>> kind : kinds(name).entrySet()) {
            RLock[] pair = kind.getValue().apply(one, two);
            pairs.put(kind.getKey(), pair);
            pair[0].lockAsync(-1, TimeUnit.MILLISECONDS, 1L).get(WAIT_MS, TimeUnit.MILLISECONDS);
            assertThat(pair[0].isHeldByThread(1L)).as("%s: held", kind.getKey()).isTrue();
            waits.put(kind.getKey(), pair[1].tryLockAsync(WAIT_MS, LEASE_MS, TimeUnit.MILLISECONDS, 2L));
        }
        // past twice the watchdog's lease, only its renewals keep each holder in and its waiter out
        await().during(watchdog.multipliedBy(2).plusMillis(300)).atMost(Duration.ofMillis(WAIT_MS))
                .until(() -> pairs.entrySet().stream().allMatch(
                        pair -> !waits.get(pair.getKey()).isDone() && pair.getValue()[0].isHeldByThread(1L)));
        for (Map.Entry<String, RLock[]> pair : pairs.entrySet()) {
            handOver(pair.getKey(), pair.getValue()[0], pair.getValue()[1], waits.get(pair.getKey()));
        }
        RFencedLock fenced = one.getFencedLock(name + ":fenced");
        long token = fenced.lockAndGetTokenAsync(LEASE_MS, TimeUnit.MILLISECONDS, 3L).get(WAIT_MS, TimeUnit.MILLISECONDS);
        assertThat(two.getFencedLock(name + ":fenced").getToken()).as("fenced: the token on Redis").isEqualTo(token);
        fenced.unlockAsync(3L).get(WAIT_MS, TimeUnit.MILLISECONDS);
        long next = two.getFencedLock(name + ":fenced").lockAndGetTokenAsync(LEASE_MS, TimeUnit.MILLISECONDS, 4L)
                .get(WAIT_MS, TimeUnit.MILLISECONDS);
        assertThat(next).as("fenced: tokens increase").isGreaterThan(token);
        assertThat(one.getFencedLock(name + ":fenced").forceUnlock()).as("fenced: force unlock").isTrue();
    }

    private static void handOver(String kind, RLock holder, RLock waiter, CompletableFuture<Boolean> waiting)
            throws Exception {
        long unlockedAt = System.nanoTime();
        holder.unlockAsync(1L).get(WAIT_MS, TimeUnit.MILLISECONDS);
        assertThat(waiting.get(WAIT_MS, TimeUnit.MILLISECONDS)).as("%s: the waiter acquired", kind).isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - unlockedAt))
                .as("%s: woken by the unlock, well before a lease would end", kind).isLessThan(10_000);
        assertThat(waiter.isHeldByThread(2L)).as("%s: held by the waiter", kind).isTrue();
        waiter.unlockAsync(2L).get(WAIT_MS, TimeUnit.MILLISECONDS);
        assertThat(holder.isLocked()).as("%s: free at the end", kind).isFalse();
    }
}
