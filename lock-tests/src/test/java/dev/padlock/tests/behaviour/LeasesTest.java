package dev.padlock.tests.behaviour;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.LockLease;
import dev.padlock.RFencedLock;
import dev.padlock.RLock;
import dev.padlock.tests.support.Clients;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.junit.RedisTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Leases (issue 27): holds owned by a handle, which any thread may use and release, for every
 * kind of lock; their field on Redis, {@code safeFor()}, loss, extension and bad input.
 */
@RedisTest
class LeasesTest {
    /** Upper bound for anything that should finish quickly: catches hangs only. */
    private static final Duration HANG = Duration.ofSeconds(30);

    @RegisterExtension
    final Clients clients = new Clients();

    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void stopPool() {
        pool.shutdownNow();
    }

    /** The lock of {@code kind} named {@code name}, from {@code client}. */
    private static RLock lock(LockClient client, String kind, String name) {
        return switch (kind) {
            case "plain" -> client.getLock(name);
            case "fair" -> client.getFairLock(name);
            case "read" -> client.getReadWriteLock(name).readLock();
            case "write" -> client.getReadWriteLock(name).writeLock();
            case "fenced" -> client.getFencedLock(name);
            case "spin" -> client.getSpinLock(name);
            case "multi" -> client.getMultiLock(client.getLock(name + ":a"), client.getFairLock(name + ":b"));
            default -> throw new IllegalArgumentException(kind);
        };
    }

    @ParameterizedTest
    @ValueSource(strings = {"plain", "fair", "read", "write", "fenced", "spin", "multi"})
    void everyKindHandsOutALeaseThatAnotherThreadReleases(String kind) throws Exception {
        LockClient client = clients.open();
        String name = Clients.uniqueName("lease-" + kind);
        RLock lock = lock(client, kind, name);

        LockLease lease = CompletableFuture.supplyAsync(lock::acquire, pool).get(HANG.toSeconds(), TimeUnit.SECONDS);

        assertThat(lease.lockName()).isEqualTo(lock.getName());
        assertThat(lease.isHeld()).isTrue();
        assertThat(lock.isLocked()).isTrue();
        assertThat(lease.safeFor()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(30));
        assertThat(lease.token() != null).isEqualTo(kind.equals("fenced"));
        assertThat(lock.isHeldByCurrentThread()).as("no thread owns a lease").isFalse();

        CompletableFuture.runAsync(lease::release, pool).get(HANG.toSeconds(), TimeUnit.SECONDS);

        assertThat(lease.isHeld()).isFalse();
        assertThat(lease.safeFor()).isZero();
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void aLeaseIsAnOrdinaryHolderFieldWithALongNoThreadUses(RedisAdmin admin) {
        LockClient client = clients.open();
        String name = Clients.uniqueName("lease-field");
        try (LockLease lease = client.getLock(name).acquire()) {
            Map<String, String> hash = admin.commands().hgetall(name);
            assertThat(hash).hasSize(1);
            String field = hash.keySet().iterator().next();
            assertThat(field).startsWith(client.getId() + ":");
            assertThat(Long.parseLong(field.substring(field.indexOf(':') + 1))).as("no thread's id").isNegative();
            assertThat(hash.get(field)).isEqualTo("1");
            assertThat(admin.commands().pttl(name)).isPositive();
        }
        assertThat(admin.commands().exists(name)).isZero();
    }

    @Test
    void eachAcquireIsANewHoldEvenOnOneThread() throws InterruptedException {
        RLock lock = clients.open().getLock(Clients.uniqueName("lease-holds"));
        try (LockLease first = lock.acquire()) {
            assertThat(lock.tryAcquire(Duration.ZERO)).as("a lease is not reentrant").isEmpty();
            assertThat(lock.tryAcquire(Duration.ofMillis(50))).isEmpty();
            assertThat(first.isHeld()).isTrue();
        }
        Optional<LockLease> next = lock.tryAcquire(Duration.ZERO);
        assertThat(next).isPresent();
        next.get().release();
    }

    @Test
    void closeReleasesOnceAndIsQuietForALostLease() {
        RLock lock = clients.open().getLock(Clients.uniqueName("lease-close"));
        LockLease lease = lock.acquire();
        lease.close();
        lease.close();
        assertThat(lock.isLocked()).isFalse();
        assertThatThrownBy(lease::release).isInstanceOf(IllegalMonitorStateException.class);

        LockLease lost = lock.acquire();
        assertThat(lock.forceUnlock()).isTrue();
        lost.close(); // logged, not thrown
        assertThat(lost.safeFor()).isZero();
    }

    @Test
    void aFixedLeaseIsSafeForAtMostItsLeaseAndExtends(RedisAdmin admin) throws Exception {
        RLock lock = clients.open().getLock(Clients.uniqueName("lease-fixed"));
        LockLease lease = lock.acquire(Duration.ofSeconds(2));
        assertThat(lease.safeFor()).isPositive().isLessThan(Duration.ofSeconds(2));
        assertThat(admin.commands().pttl(lock.getName())).isBetween(1L, 2_000L);

        assertThat(lease.extend(Duration.ofSeconds(20))).isTrue();
        assertThat(lease.safeFor()).isGreaterThan(Duration.ofSeconds(2)).isLessThan(Duration.ofSeconds(20));
        assertThat(admin.commands().pttl(lock.getName())).isGreaterThan(2_000L);
        lease.release();

        assertThat(lease.extend(Duration.ofSeconds(1))).as("a released lease").isFalse();
        LockLease watched = lock.acquire();
        assertThatThrownBy(() -> watched.extend(Duration.ofSeconds(5))).isInstanceOf(IllegalStateException.class);
        watched.release();
    }

    @Test
    void aWatchdogLeaseStaysSafeWhileRenewedAndIsLostWhenDeleted(RedisAdmin admin) {
        List<String> heard = new CopyOnWriteArrayList<>();
        LockClient client = clients.open(b -> b.watchdogTimeout(Duration.ofMillis(1_500))
                .leaseLostListener((lockName, owner) -> heard.add(lockName + "@" + owner)));
        RLock lock = client.getLock(Clients.uniqueName("lease-watchdog"));
        LockLease lease = lock.acquire();
        AtomicInteger lostRuns = new AtomicInteger();
        lease.onLost(lostRuns::incrementAndGet);

        // renewals go on: past the first lease's end, the lease still holds and a renewal makes it safe again
        long acquiredAt = System.nanoTime();
        await().atMost(HANG).until(() -> System.nanoTime() - acquiredAt > TimeUnit.MILLISECONDS.toNanos(2_000)
                && lease.safeFor().toMillis() > 0 && lease.isHeld());
        assertThat(lease.safeFor()).isLessThanOrEqualTo(Duration.ofMillis(1_500));

        admin.commands().del(lock.getName());
        // the lease's action and the client's listener hear the loss each on its own, off this
        // thread: one may come later than the other, so wait for both
        await().atMost(HANG).until(() -> lostRuns.get() == 1 && !heard.isEmpty());
        assertThat(lease.safeFor()).isZero();
        assertThat(heard).singleElement().asString().startsWith(lock.getName() + "@-");
        lease.onLost(lostRuns::incrementAndGet); // added after the loss: runs at once
        await().atMost(HANG).until(() -> lostRuns.get() == 2);
        lease.close();
    }

    @Test
    void aForceUnlockByThisClientEndsTheLeasesSafety() {
        RLock lock = clients.open().getLock(Clients.uniqueName("lease-force"));
        LockLease lease = lock.acquire(Duration.ofSeconds(20));
        AtomicInteger lostRuns = new AtomicInteger();
        lease.onLost(lostRuns::incrementAndGet);
        assertThat(lock.forceUnlock()).isTrue();
        assertThat(lease.safeFor()).isZero();
        await().atMost(HANG).until(() -> lostRuns.get() == 1);
        assertThat(lease.isHeld()).isFalse();
    }

    @Test
    void fencedLeasesCarryIncreasingTokens() {
        RFencedLock lock = clients.open().getFencedLock(Clients.uniqueName("lease-token"));
        long first;
        try (LockLease lease = lock.acquire()) {
            first = lease.token();
            assertThat(lock.getToken()).isEqualTo(first);
        }
        try (LockLease lease = lock.acquire(Duration.ofSeconds(5))) {
            assertThat(lease.token()).isGreaterThan(first);
        }
    }

    @Test
    void aCancelledAcquisitionLeavesNothingBehind(RedisAdmin admin) throws Exception {
        LockClient client = clients.open();
        RLock lock = client.getLock(Clients.uniqueName("lease-cancel"));
        LockLease holder = lock.acquire();
        CompletableFuture<LockLease> waiting = lock.acquireAsync();
        CompletableFuture<Optional<LockLease>> bounded = lock.tryAcquireAsync(Duration.ofSeconds(20));
        assertThat(waiting.cancel(false)).isTrue();
        assertThat(bounded.cancel(false)).isTrue();
        holder.release();
        await().atMost(HANG).until(() -> admin.commands().exists(lock.getName()) == 0);
        Optional<LockLease> next = lock.tryAcquire(Duration.ofSeconds(5));
        assertThat(next).isPresent();
        next.get().release();
    }

    @Test
    void aLeaseThatLandsAsItsFutureIsCancelledIsReleased(RedisAdmin admin) {
        RLock lock = clients.open().getLock(Clients.uniqueName("lease-cancel-race"));
        for (int i = 0; i < 50; i++) {
            // cancelled at once: a lease that lands after the cancel is released by Padlock; one that
            // landed before it (the cancel answers false) is the caller's
            CompletableFuture<LockLease> unbounded = lock.acquireAsync();
            if (!unbounded.cancel(false)) {
                unbounded.join().release();
            }
            CompletableFuture<Optional<LockLease>> bounded = lock.tryAcquireAsync(Duration.ofSeconds(5));
            if (!bounded.cancel(false)) {
                bounded.join().ifPresent(LockLease::release);
            }
        }
        await().atMost(HANG).until(() -> admin.commands().exists(lock.getName()) == 0);
    }

    @Test
    void anInterruptedTryAcquireThrowsAndLeavesNothing() throws Exception {
        RLock lock = clients.open().getLock(Clients.uniqueName("lease-interrupt"));
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> lock.tryAcquire(Duration.ofSeconds(5))).isInstanceOf(InterruptedException.class);
        assertThat(Thread.interrupted()).isFalse();
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void anInterruptDuringTheWaitThrowsAndLeavesNothing(RedisAdmin admin) throws Exception {
        RLock lock = clients.open().getLock(Clients.uniqueName("lease-interrupt-wait"));
        LockLease holder = lock.acquire();
        CompletableFuture<Throwable> waiter = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                waiter.complete(new AssertionError("acquired: " + lock.tryAcquire(Duration.ofSeconds(60))));
            } catch (Throwable e) {
                waiter.complete(e);
            }
        });
        thread.start();
        await().atMost(HANG).until(() -> thread.getState() == Thread.State.WAITING
                || thread.getState() == Thread.State.TIMED_WAITING);
        thread.interrupt();
        assertThat(waiter.get(HANG.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        holder.release();
        await().atMost(HANG).until(() -> admin.commands().exists(lock.getName()) == 0);
    }

    @Test
    void badInputIsRejectedAtTheCall() {
        RLock lock = clients.open().getLock(Clients.uniqueName("lease-bad"));
        assertThatThrownBy(() -> lock.tryAcquireAsync(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> lock.acquireAsync(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> lock.acquire(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> lock.tryAcquire(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> lock.tryAcquire(Duration.ZERO, Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(lock.isLocked()).isFalse();
        LockLease lease = lock.acquire();
        assertThatThrownBy(() -> lease.onLost(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> lease.extend(null)).isInstanceOf(NullPointerException.class);
        lease.release();
    }
}
