package dev.padlock.spring.integration;

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
    }

    @Override
    public void onRevoked(Context context) {
        if (leader) {
            leader = false;
            leaders.decrementAndGet();
        }
    }
}
