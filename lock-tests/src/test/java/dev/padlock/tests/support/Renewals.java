package dev.padlock.tests.support;

import static org.awaitility.Awaitility.await;

import dev.padlock.LockObserver;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts a client's watchdog renewals as its observer is told of them (set it with
 * {@code LockConfig.Builder.observer}): for tests that wait for leases to be renewed a number of
 * times instead of sleeping "more than three leases", so a slow machine makes them slower, not red.
 */
public final class Renewals implements LockObserver {
    /** The most a wait for renewals takes before it fails. */
    private static final Duration BOUND = Duration.ofSeconds(30);

    private final AtomicInteger renewed = new AtomicInteger();
    private final AtomicInteger lost = new AtomicInteger();

    @Override
    public void leasesRenewed(int owners, RenewalOutcome outcome) {
        if (outcome == RenewalOutcome.RENEWED) {
            renewed.addAndGet(owners);
        } else if (outcome == RenewalOutcome.LOST) {
            lost.addAndGet(owners);
        }
    }

    /** Owner leases renewed so far (an owner renewed twice counts twice). */
    public int renewed() {
        return renewed.get();
    }

    /** Owner leases the watchdog found lost so far. */
    public int lost() {
        return lost.get();
    }

    /**
     * Waits (at most 30 s) until {@code more} owner leases have been renewed after this call: each
     * renewal answered that its owner still held the lock, so the holds lived on renewals alone once
     * the renewals span more than a lease.
     */
    public void awaitMore(int more) {
        int target = renewed.get() + more;
        await(more + " more lease renewals").atMost(BOUND).pollInterval(Duration.ofMillis(20))
                .until(() -> renewed.get() >= target);
    }
}
