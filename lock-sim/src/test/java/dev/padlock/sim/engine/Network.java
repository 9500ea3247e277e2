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

    public Network(World world) {
        this.world = world;
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
