package dev.padlock.internal.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.internal.acquire.RecordingProtocol;
import dev.padlock.internal.base.ManualTimer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link LeaseClock} on a manual clock: what {@code safeFor()} says, from sends, renewals and loss. */
class LeaseClockTest {
    private final ManualTimer time = new ManualTimer();
    private final RecordingProtocol orders = new RecordingProtocol("orders");
    private final RecordingProtocol invoices = new RecordingProtocol("invoices");

    private static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    @Test
    void aLeaseCountsFromTheSendLessTheDrift() {
        LeaseClock clock = new LeaseClock(time, time.nanoTime(), LeaseMillis.WATCHDOG);
        assertThat(clock.safeForNanos()).as("nothing reported yet for a watchdog lease").isZero();
        long sent = time.nanoTime();
        time.advance(400); // the reply is read 400 ms after the send
        clock.ttlSet(orders, sent, 10_000);
        // 10 s - 1% - 2 ms, counted from the send
        assertThat(millis(clock.safeForNanos())).isEqualTo(10_000 - 100 - 2 - 400);
        time.advance(9_498);
        assertThat(clock.safeForNanos()).isZero();
    }

    @Test
    void aRenewalCountsFromItsSendAndAnOlderOneNeverShortensIt() {
        LeaseClock clock = new LeaseClock(time, time.nanoTime(), LeaseMillis.WATCHDOG);
        long first = time.nanoTime();
        clock.ttlSet(orders, first, 3_000);
        time.advance(1_000);
        long second = time.nanoTime();
        clock.ttlSet(orders, second, 3_000);
        clock.ttlSet(orders, first, 3_000); // a late reply to the older request
        assertThat(millis(clock.safeForNanos())).isEqualTo(3_000 - 30 - 2);
    }

    @Test
    void aLeaseOfSeveralLocksIsSafeForTheShortest() {
        LeaseClock clock = new LeaseClock(time, time.nanoTime(), LeaseMillis.WATCHDOG);
        clock.ttlSet(orders, time.nanoTime(), 5_000);
        clock.ttlSet(invoices, time.nanoTime(), 2_000);
        assertThat(millis(clock.safeForNanos())).isEqualTo(2_000 - 20 - 2);
        assertThat(clock.holds("invoices")).isTrue();
        assertThat(clock.holds("payments")).isFalse();
    }

    /** A lock of no client (none reports on it) reads no clock: its lease is certain of nothing. */
    @Test
    void aLeaseOfALockNoClientReportsOnIsSafeForNothing() {
        LeaseClock clock = LeaseClocks.unreported();
        assertThat(clock.safeForNanos()).isZero();
        clock.ttlSet(orders, time.nanoTime(), 10_000);
        assertThat(clock.safeForNanos()).isZero();
    }

    @Test
    void aFixedLeaseCountsFromTheCallUntilASendIsReported() {
        LeaseClock clock = new LeaseClock(time, time.nanoTime(), 1_000);
        time.advance(100);
        assertThat(millis(clock.safeForNanos())).isEqualTo(1_000 - 10 - 2 - 100);
    }

    @Test
    void aLossEndsTheLeaseAndRunsItsActionsOnceOffTheCallersThread() throws InterruptedException {
        LeaseClock clock = new LeaseClock(time, time.nanoTime(), LeaseMillis.WATCHDOG);
        clock.ttlSet(orders, time.nanoTime(), 30_000);
        CountDownLatch before = new CountDownLatch(1);
        CountDownLatch after = new CountDownLatch(1);
        AtomicInteger runs = new AtomicInteger();
        Thread caller = Thread.currentThread();
        clock.onLost(() -> {
            runs.incrementAndGet();
            assertThat(Thread.currentThread()).isNotSameAs(caller);
            before.countDown();
        });
        clock.lost();
        clock.lost();
        assertThat(clock.safeForNanos()).isZero();
        assertThat(before.await(30, TimeUnit.SECONDS)).isTrue(); // a bound that catches a hang only
        clock.onLost(after::countDown); // added after the loss: runs at once
        assertThat(after.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(runs.get()).isEqualTo(1);
    }

    @Test
    void aReleasedLeaseIsNeverLost() {
        LeaseClock clock = new LeaseClock(time, time.nanoTime(), LeaseMillis.WATCHDOG);
        clock.ttlSet(orders, time.nanoTime(), 30_000);
        AtomicInteger runs = new AtomicInteger();
        clock.onLost(runs::incrementAndGet);
        clock.released();
        clock.lost();
        clock.onLost(runs::incrementAndGet);
        assertThat(clock.safeForNanos()).isZero();
        assertThat(runs.get()).isZero();
    }

    @Test
    void onlyLeaseOwnersAreLeases() {
        LeaseClocks client = new LeaseClocks();
        long owner = LeaseClocks.newOwner();
        client.open(owner, LeaseClocks.start(time, 0));
        assertThat(LeaseClocks.isLease(owner)).isTrue();
        assertThat(LeaseClocks.isLease(Thread.currentThread().getId())).isFalse();
        client.ttlSet(orders, owner, time.nanoTime(), 1_000);
        assertThat(client.clockOf(owner).safeForNanos()).isPositive();
        client.close(owner);
        assertThat(client.clockOf(owner)).isNull();
    }

    /** Each client reports to its own leases: no state is shared by clients but the owner ids. */
    @Test
    void aClientsReportsReachOnlyTheLeasesOpenedOnIt() {
        LeaseClocks mine = new LeaseClocks();
        LeaseClocks other = new LeaseClocks();
        long owner = LeaseClocks.newOwner();
        LeaseClock clock = LeaseClocks.start(time, 0);
        mine.open(owner, clock);

        other.ttlSet(orders, owner, time.nanoTime(), 1_000);
        assertThat(clock.safeForNanos()).isZero();
        mine.ttlSet(orders, owner, time.nanoTime(), 1_000);
        assertThat(clock.safeForNanos()).isPositive();
        assertThat(LeaseClocks.newOwner()).isNotEqualTo(owner);
    }
}
