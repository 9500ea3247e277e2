package dev.padlock.sim.engine;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * How the simulated network treats each message: its latency (usually well under a millisecond,
 * now and then tens of milliseconds) and, with the faults on, pub/sub messages lost or held
 * back. Seeded through the world.
 */
public final class Network {
    private final World world;
    /** Chance that a pub/sub message is lost on its way to a client. */
    private volatile double messageLoss;
    /** Chance that a pub/sub message is held back for up to {@link #LONG_DELAY_NANOS}. */
    private volatile double messageDelay;
    static final long LONG_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(400);
    /** How far ahead a key's expiry may be for a command to be held back to reach Redis exactly then. */
    static final long AIM_WINDOW_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    public Network(World world) {
        this.world = world;
    }

    /** Chance that a command reaches the server exactly at its key's expiry (the last instant it lives, or the first it is gone). */
    private volatile double expiryAim;

    public void expiryFaults(double aim) {
        this.expiryAim = aim;
    }

    boolean aimAtExpiry() {
        return expiryAim > 0 && world.chance(expiryAim);
    }

    /** 0: the last instant a key with that expiry lives (Redis: expired when now > expiry); 1 ms: the first it is gone. */
    long expiryOffsetNanos() {
        return world.random().nextBoolean() ? 0 : TimeUnit.MILLISECONDS.toNanos(1);
    }

    public void messageFaults(double loss, double delay) {
        this.messageLoss = loss;
        this.messageDelay = delay;
    }

    /** One hop's latency: mostly 50-800 us, one in twenty up to 30 ms. */
    long latency() {
        SplittableRandom random = world.random();
        if (random.nextInt(20) == 0) {
            return TimeUnit.MICROSECONDS.toNanos(1_000 + random.nextLong(29_000));
        }
        return TimeUnit.MICROSECONDS.toNanos(50 + random.nextLong(750));
    }

    boolean loseMessage() {
        return messageLoss > 0 && world.chance(messageLoss);
    }

    long messageLatency() {
        return messageDelay > 0 && world.chance(messageDelay) ? world.random().nextLong(LONG_DELAY_NANOS) : latency();
    }
}
