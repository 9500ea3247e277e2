package dev.padlock.internal.acquire;

import dev.padlock.internal.base.EngineClock;

/**
 * An exponential back-off: each pause twice the last, from a first pause up to a largest one. The
 * wait loop has two (between the attempts of a spinning wait, with jitter; before finding out what
 * a call with a lost reply did), and a give-back of {@link Abandonments} one. Confined to the one
 * wait loop or chain of callbacks that uses it.
 */
final class Backoff {
    private final long firstMillis;
    private final long maxMillis;
    private long stepMillis;

    Backoff(long firstMillis, long maxMillis) {
        this.firstMillis = firstMillis;
        this.maxMillis = maxMillis;
        this.stepMillis = firstMillis;
    }

    /** The pause now; the next is twice as long, up to the largest. */
    long next() {
        long step = stepMillis;
        stepMillis = Math.min(maxMillis, step * 2);
        return step;
    }

    /**
     * {@link #next()} with jitter: a random time in the upper half of the pause, so that clients
     * backing off together spread out.
     */
    long nextWithJitter(EngineClock clock) {
        long step = next();
        return step / 2 + clock.jitter(step / 2);
    }

    /** Starts again from the first pause. */
    void reset() {
        stepMillis = firstMillis;
    }
}
