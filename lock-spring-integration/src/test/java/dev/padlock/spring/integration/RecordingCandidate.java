package dev.padlock.spring.integration;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.integration.leader.AbstractCandidate;
import org.springframework.integration.leader.Context;

/**
 * A leader candidate that counts the leaders of its role across candidates (one shared counter)
 * and records the largest count seen, and when it was last granted.
 */
final class RecordingCandidate extends AbstractCandidate {
    private final AtomicInteger leaders;
    private final AtomicInteger mostLeaders;
    volatile boolean leader;
    volatile long grantedAtNanos;
    /** Counted down at the first grant: for a waiter that must not poll {@link #leader}. */
    final CountDownLatch firstGranted = new CountDownLatch(1);

    RecordingCandidate(String id, String role, AtomicInteger leaders, AtomicInteger mostLeaders) {
        super(id, role);
        this.leaders = leaders;
        this.mostLeaders = mostLeaders;
    }

    @Override
    public void onGranted(Context context) {
        grantedAtNanos = System.nanoTime();
        leader = true;
        mostLeaders.accumulateAndGet(leaders.incrementAndGet(), Math::max);
        firstGranted.countDown();
    }

    @Override
    public void onRevoked(Context context) {
        if (leader) {
            leader = false;
            leaders.decrementAndGet();
        }
    }
}
