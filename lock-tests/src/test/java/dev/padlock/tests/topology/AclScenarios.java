package dev.padlock.tests.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.RFencedLock;
import dev.padlock.RLock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One pass over every lock kind and the calls that reach Redis, with a contended wait that must
 * wake through pub/sub, for tests that check a connection setup (an ACL user, TLS) carries all of
 * Padlock. Each wait is bounded; owners are explicit thread ids on the asynchronous API.
 */
final class AclScenarios {
    /** Each wait and bounded call: long enough that a busy machine does not run it out. */
    private static final long WAIT_MS = 15_000;
    private static final long LEASE_MS = 20_000;

    private AclScenarios() {
    }

    /**
     * Exercises plain, spin, fair, read-write and fenced locks on names starting with
     * {@code name}, between two clients. {@code one} should have a short watchdog timeout, so that
     * a watchdog renewal happens during the pass.
     */
    static void exerciseEveryKind(LockClient one, LockClient two, String name) throws Exception {
        handOverAcrossClients(one.getLock(name), two.getLock(name));
        handOverAcrossClients(one.getFairLock(name + ":fair"), two.getFairLock(name + ":fair"));
        handOverAcrossClients(one.getReadWriteLock(name + ":rw").readLock(),
                two.getReadWriteLock(name + ":rw").writeLock());
        handOverAcrossClients(one.getSpinLock(name + ":spin"), two.getSpinLock(name + ":spin"));

        RLock watched = one.getLock(name + ":watchdog");
        watched.lockAsync(-1, TimeUnit.MILLISECONDS, 1L).get(WAIT_MS, TimeUnit.MILLISECONDS);
        long ttl = watched.remainTimeToLive();
        // not a synchronisation: wall time past the first lease, so that only a renewal keeps it
        Thread.sleep(Math.max(ttl, 0) + 300);
        assertThat(watched.isHeldByThread(1L)).as("renewed by the watchdog").isTrue();
        watched.unlockAsync(1L).get(WAIT_MS, TimeUnit.MILLISECONDS);

        RFencedLock fenced = one.getFencedLock(name + ":fenced");
        long token = fenced.lockAndGetTokenAsync(LEASE_MS, TimeUnit.MILLISECONDS, 1L).get(WAIT_MS, TimeUnit.MILLISECONDS);
        assertThat(two.getFencedLock(name + ":fenced").getToken()).isEqualTo(token);
        fenced.unlockAsync(1L).get(WAIT_MS, TimeUnit.MILLISECONDS);
        long next = two.getFencedLock(name + ":fenced").lockAndGetTokenAsync(LEASE_MS, TimeUnit.MILLISECONDS, 2L)
                .get(WAIT_MS, TimeUnit.MILLISECONDS);
        assertThat(next).isGreaterThan(token);
        assertThat(one.getLock(name + ":fenced").forceUnlock()).isTrue();
        assertThat(one.getLock(name + ":fenced").isLocked()).isFalse();
    }

    /** {@code first} holds (owner 1), {@code second} waits (owner 2) and gets it when first unlocks. */
    private static void handOverAcrossClients(RLock first, RLock second) throws Exception {
        assertThat(first.tryLockAsync(0, LEASE_MS, TimeUnit.MILLISECONDS, 1L).get(WAIT_MS, TimeUnit.MILLISECONDS)).isTrue();
        assertThat(first.isHeldByThread(1L)).isTrue();
        assertThat(first.remainTimeToLive()).isPositive();
        CompletableFuture<Boolean> waiting = second.tryLockAsync(WAIT_MS, LEASE_MS, TimeUnit.MILLISECONDS, 2L);
        // the holder's 20 s lease keeps the waiter out: a state, not a race (and time for it to try and wait)
        await().during(Duration.ofMillis(200)).atMost(Duration.ofMillis(WAIT_MS)).until(() -> !waiting.isDone());
        long unlockedAt = System.nanoTime();
        first.unlockAsync(1L).get(WAIT_MS, TimeUnit.MILLISECONDS);
        assertThat(waiting.get(WAIT_MS, TimeUnit.MILLISECONDS)).as(second.getName() + " acquired").isTrue();
        // generous for a busy machine, well short of the waiter's 15 s wait and the holder's 20 s lease
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - unlockedAt))
                .as("woken by the unlock, well before the holder's lease would end").isLessThan(10_000);
        second.unlockAsync(2L).get(WAIT_MS, TimeUnit.MILLISECONDS);
        assertThat(first.isLocked()).isFalse();
    }
}
