package dev.padlock.bench;

import java.time.Duration;
import java.util.Collection;
import java.util.Locale;

/**
 * The measurement every throughput scenario shares: warm up, measure a window between two
 * pauses (counts and server stats are exact there), then a short {@code MONITOR} pass for the
 * round trips (and the scripts ending with {@code PTTL} of a lock, for {@link FailedAttempts}),
 * then look for keys left behind (the load is paused by then) and close the load.
 *
 * <p>Acquisitions/s count the acquisitions made from the start of the window to the moment the
 * pause is asked for, read from the running load: a pause waits for every acquisition under
 * way, and one waiter that is not woken (Redisson's read-write lock, now and then, until the
 * lock's lease would have run out) would otherwise add up to a lease of idle time to the
 * window. The other figures use the exact counts at the pause.
 */
final class ThroughputMeasurement {

    /** How many more windows a measurement may take when the first saw no acquisition at all. */
    private static final int MAX_EXTRA_WINDOWS = 50;
    /** A pause slower than this is noted on stderr. */
    private static final Duration SLOW_PAUSE = Duration.ofSeconds(2);

    private ThroughputMeasurement() {
    }

    /** Measures {@code load} (created paused) and closes it. */
    static ScenarioResult measure(Load load, BenchContext context, String tag, Collection<String> lockNames) {
        return measure(load, context, tag, lockNames, null);
    }

    /**
     * Measures {@code load} (created paused) and closes it; counts its failed attempts as
     * {@code failedAttempts} says, unless that is null.
     */
    static ScenarioResult measure(Load load, BenchContext context, String tag, Collection<String> lockNames,
            FailedAttempts failedAttempts) {
        try (load) {
            load.resume();
            BenchContext.sleep(context.warmUp());
            long[] start = load.pause();
            ServerSnapshot before = ServerSnapshot.take(context.admins());
            long startNanos = System.nanoTime();
            Window window = runUntilAnAcquisition(load, context.measured(), start, tag);
            double seconds = (window.pausedAtNanos() - startNanos) / 1e9;
            ServerSnapshot after = ServerSnapshot.take(context.admins());

            long[] perThread = minus(window.end(), start);
            long acquisitions = sum(perThread);
            ServerCost cost = ServerSnapshot.cost(before, after, acquisitions);
            Calibration calibration = calibrate(load, context, window.end(), lockNames, tag);
            Double failed = failedAttempts == null ? null
                    : failedAttempts.perAcquisition(cost, calibration.scriptsEndingWithPttl());
            return new ScenarioResult(sum(minus(window.running(), start)) / seconds, perThread, cost,
                    calibration.roundTrips(), context.keysLeft(tag, lockNames), null).withFailedAttempts(failed);
        }
    }

    /** What the {@code MONITOR} pass counted, per acquisition of the pass. */
    private record Calibration(double roundTrips, double scriptsEndingWithPttl) {
    }

    private static Calibration calibrate(Load load, BenchContext context, long[] start,
            Collection<String> lockNames, String tag) {
        try (MonitorCounter monitor = MonitorCounter.start(context.admins(), lockNames)) {
            long acquisitions = sum(minus(runUntilAnAcquisition(load, context.calibration(), start, tag).end(),
                    start));
            long commands = monitor.finish();
            return new Calibration((double) commands / acquisitions,
                    (double) monitor.scriptsEndingWithPttl() / acquisitions);
        }
    }

    /**
     * A measured window's end: the counts read from the running load right when the final pause
     * was asked for, that moment ({@link System#nanoTime()}), and the exact counts at the pause.
     */
    private record Window(long[] running, long pausedAtNanos, long[] end) {
    }

    /**
     * Runs the load for {@code window}, and for more windows while not one acquisition was made
     * since {@code start} before a pause was asked for (a very short window on a cold JVM), up to
     * {@link #MAX_EXTRA_WINDOWS} more; returns the final pause's window end. A slow pause is
     * noted on stderr with the run's {@code tag}.
     *
     * @throws IllegalStateException when still nothing was acquired
     */
    private static Window runUntilAnAcquisition(Load load, Duration window, long[] start, String tag) {
        Window end = new Window(start, System.nanoTime(), start);
        for (int i = 0; i <= MAX_EXTRA_WINDOWS && sum(minus(end.running(), start)) == 0; i++) {
            load.resume();
            BenchContext.sleep(window);
            long pausedAt = System.nanoTime();
            long[] running = load.counts();
            end = new Window(running, pausedAt, load.pause());
            long pausing = System.nanoTime() - pausedAt;
            if (pausing > SLOW_PAUSE.toNanos()) {
                System.err.printf(Locale.ROOT, "bench: note: %s: pausing took %.1f s, an acquisition under way took"
                        + " that long to finish (left out of acquisitions/s)%n", tag, pausing / 1e9);
            }
        }
        if (sum(minus(end.running(), start)) == 0) {
            throw new IllegalStateException("No acquisition in " + (MAX_EXTRA_WINDOWS + 1) + " windows of " + window);
        }
        return end;
    }

    private static long[] minus(long[] end, long[] start) {
        long[] difference = new long[end.length];
        for (int i = 0; i < end.length; i++) {
            difference[i] = end[i] - start[i];
        }
        return difference;
    }

    private static long sum(long[] counts) {
        long total = 0;
        for (long count : counts) {
            total += count;
        }
        return total;
    }
}
