package dev.padlock.internal.base;

/**
 * The engine's one source of time, and of the chance in its jitter. Production reads the system
 * clocks; a test drives a manual clock (with the manual timer) so state machines run without
 * sleeping, and a simulation seeds the jitter so that a run can be repeated.
 */
public interface EngineClock {

    /** The system's clocks: the only place the engine reads them. */
    EngineClock SYSTEM = new EngineClock() {
        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public long currentTimeMillis() {
            return System.currentTimeMillis();
        }
    };

    /** A monotonic reading for intervals and deadlines, as {@link System#nanoTime()}. */
    long nanoTime();

    /** Wall-clock time, as {@link System#currentTimeMillis()}: only for values written to Redis. */
    long currentTimeMillis();

    /**
     * A random number from 0 to {@code bound} inclusive, to spread out clients that would back off
     * or retry together: the engine's only use of chance.
     */
    default long jitter(long bound) {
        return java.util.concurrent.ThreadLocalRandom.current().nextLong(bound + 1);
    }

    /** Milliseconds since {@code startNanos}, a reading of {@link #nanoTime()}. */
    default long millisSince(long startNanos) {
        return java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(nanoTime() - startNanos);
    }
}
