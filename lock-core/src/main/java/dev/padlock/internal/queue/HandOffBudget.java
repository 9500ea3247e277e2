package dev.padlock.internal.queue;

import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.protocol.LockProtocol.Release;
import java.util.concurrent.TimeUnit;

/**
 * How long one client may keep a lock, or a semaphore's permits, among its own threads: for a
 * {@link LocalQueue}, a chain of local hand-offs starts when an owner takes the lock from Redis;
 * for a semaphore's permits ({@code semaphore.PermitHandOffs}), at the first hand-off after a
 * release on Redis. A chain ends after {@value #MAX_LOCAL_HAND_OFFS} hand-offs or
 * {@link #MAX_LOCAL_CHAIN_NANOS}, whichever comes first; the release after that is global (on
 * Redis, with its message), so waiters of other clients get their chance. Also how long the next
 * local owner of a lock yields after such a release.
 *
 * <p>Not thread-safe: guarded by its owner's monitor (the queue's, the hand-offs').
 */
public final class HandOffBudget {
    /** The most hand-offs in a row before a release is global. */
    static final int MAX_LOCAL_HAND_OFFS = 32;
    /** The longest a chain of hand-offs may go on, from the Redis acquisition (or first hand-off) that started it. */
    static final long MAX_LOCAL_CHAIN_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** Bounds of the yield after a global release that other clients heard. */
    static final long MIN_YIELD_NANOS = TimeUnit.MICROSECONDS.toNanos(200);
    static final long MAX_YIELD_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private final EngineClock clock;
    private int handOffs;
    /** {@link EngineClock#nanoTime()} when the chain started. */
    private long chainStart;

    public HandOffBudget(EngineClock clock) {
        this.clock = clock;
    }

    /**
     * A new chain starts now: an owner took the lock from Redis (not by a hand-off), or a
     * semaphore's permits are handed off for the first time since a release on Redis.
     */
    public void restart() {
        handOffs = 0;
        chainStart = clock.nanoTime();
    }

    /** Redis confirmed one more hand-off of this chain. */
    public void handedOff() {
        handOffs++;
    }

    /** Whether the next release may hand the lock to a local owner rather than release it on Redis. */
    public boolean allowsHandOff() {
        return handOffs < MAX_LOCAL_HAND_OFFS && clock.nanoTime() - chainStart < MAX_LOCAL_CHAIN_NANOS;
    }

    /**
     * How long the next local owner waits before it asks Redis, after a global release: when the
     * unlock message reached waiters of other clients, about two round trips (within
     * {@link #MIN_YIELD_NANOS} and {@link #MAX_YIELD_NANOS}), so that the one it woke gets its
     * chance before this client takes the lock again; otherwise no time at all.
     *
     * @param selfListening whether this client is one of the listeners the release counted
     * @param roundTripNanos how long the release took, from send to reply
     */
    static long yieldNanos(Release release, boolean selfListening, long roundTripNanos) {
        if (release.granted()) {
            return 0; // the lock went to the next client in line; this one is back in line
        }
        long others = release.listeners() - (selfListening ? 1 : 0);
        if (others <= 0) {
            return 0;
        }
        return Math.min(MAX_YIELD_NANOS, Math.max(MIN_YIELD_NANOS, 2 * roundTripNanos));
    }
}
