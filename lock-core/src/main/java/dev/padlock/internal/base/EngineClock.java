package dev.padlock.internal.base;

/**
 * The engine's one source of time. Production reads the system clocks; a test drives a manual
 * clock (with the manual timer) so state machines run without sleeping.
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

    /** Milliseconds since {@code startNanos}, a reading of {@link #nanoTime()}. */
    default long millisSince(long startNanos) {
        return java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(nanoTime() - startNanos);
    }
}
