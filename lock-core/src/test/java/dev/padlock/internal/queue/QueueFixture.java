package dev.padlock.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.internal.acquire.Abandonments;
import dev.padlock.internal.acquire.LockAcquisition;
import dev.padlock.internal.acquire.PendingAcquire;
import dev.padlock.internal.base.ManualTimer;
import dev.padlock.internal.grant.GrantWaits;
import dev.padlock.internal.lease.LeaseMillis;
import dev.padlock.internal.lock.LockServices;
import dev.padlock.internal.protocol.LockProtocol.Attempt;
import dev.padlock.internal.protocol.LockProtocol.ReleaseOutcome;
import dev.padlock.internal.protocol.OwnerFields;
import dev.padlock.internal.renewal.Watchdog;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One client's local queues over fakes: a manual timer (also the clock), hand-fired channels, a
 * watchdog whose renewals Redis answers at once ("still held" unless {@link #renewalFinds} says otherwise), and a recording lock named {@code orders:1}. No
 * Redis, no threads: every call runs on the test's thread.
 */
final class QueueFixture implements AutoCloseable {
    static final long LEASE = 30_000;
    static final long FOREVER = LockAcquisition.FOREVER;

    final ManualTimer timer = new ManualTimer();
    final RecordingLock lock = new RecordingLock("orders:1");
    final HandFiredChannels channels = new HandFiredChannels();
    final LocalQueues queues = new LocalQueues();
    /** What the watchdog reads as an owner's hold count when a fixed-lease acquisition meets its renewal. */
    final AtomicLong holdCount = new AtomicLong(1);
    /** What the watchdog's renewals find: 1, still held; 0, the lease was lost. */
    final AtomicLong renewalFinds = new AtomicLong(1);
    final Watchdog watchdog = new Watchdog((script, keys, args) -> CompletableFuture.completedFuture(
                    java.util.Collections.nCopies(args.length - 1, (Object) renewalFinds.get())),
            (name, field) -> CompletableFuture.completedFuture(holdCount.get()), false, LEASE, null, Runnable::run,
            queues::onLeaseLost, timer, timer);
    final Abandonments abandonments = new Abandonments(timer, timer, 1_000);
    final LockServices services = new LockServices("c", new OwnerFields("c"), null, null, channels, watchdog, queues, abandonments, timer,
            timer, 1_000, 0, 0, null, new GrantWaits());

    /** {@code owner} acquires {@link #lock} with a watchdog lease, waiting {@code waitMillis} ({@link #FOREVER}: no bound). */
    PendingAcquire acquire(long owner, long waitMillis) {
        return acquire(lock, owner, waitMillis);
    }

    PendingAcquire acquire(RecordingLock kind, long owner, long waitMillis) {
        return queues.acquire(kind, services, false, owner, LeaseMillis.WATCHDOG, waitNanos(waitMillis), false);
    }

    /** {@code owner} acquires {@link #lock} with a fixed lease of {@code leaseMillis}, waiting without bound. */
    PendingAcquire acquireFixed(long owner, long leaseMillis) {
        return queues.acquire(lock, services, false, owner, leaseMillis, FOREVER, false);
    }

    /** {@code owner} acquires {@link #lock} as a spin lock does (no pub/sub). */
    PendingAcquire acquireSpin(long owner, long waitMillis) {
        return queues.acquire(lock, services, true, owner, LeaseMillis.WATCHDOG, waitNanos(waitMillis), false);
    }

    CompletableFuture<ReleaseOutcome> release(long owner) {
        return queues.release(lock, services, owner);
    }

    /** {@code owner} acquires {@link #lock} and Redis confirms its claim. */
    void holds(long owner) {
        PendingAcquire acquisition = acquire(owner, FOREVER);
        lock.next("claim", owner).answer(Attempt.ACQUIRED);
        assertThat(acquisition.result()).isCompletedWithValue(true);
    }

    /** {@code owner} acquires {@link #lock} with a fixed lease and Redis confirms its claim. */
    void holdsFixed(long owner, long leaseMillis) {
        PendingAcquire acquisition = acquireFixed(owner, leaseMillis);
        lock.next("claim", owner).answer(Attempt.ACQUIRED);
        assertThat(acquisition.result()).isCompletedWithValue(true);
    }

    private static long waitNanos(long waitMillis) {
        return waitMillis == FOREVER ? FOREVER : TimeUnit.MILLISECONDS.toNanos(waitMillis);
    }

    @Override
    public void close() {
        queues.close();
        watchdog.close();
    }
}
