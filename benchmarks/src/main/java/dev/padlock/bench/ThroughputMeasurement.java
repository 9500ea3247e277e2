package dev.padlock.bench;

import java.util.Collection;

/**
 * The measurement every throughput scenario shares: warm up, measure a window between two
 * pauses (counts and server stats are exact there), then a short {@code MONITOR} pass for the
 * round trips (and the scripts ending with {@code PTTL} of a lock, for {@link FailedAttempts}),
 * then look for keys left behind (the load is paused by then) and close the load.
 */
final class ThroughputMeasurement {

    /** How many more windows a measurement may take when the first saw no acquisition at all. */
    private static final int MAX_EXTRA_WINDOWS = 50;

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
            long[] end = runUntilAnAcquisition(load, context.measured(), start);
            double seconds = (System.nanoTime() - startNanos) / 1e9;
            ServerSnapshot after = ServerSnapshot.take(context.admins());

            long[] perThread = minus(end, start);
            long acquisitions = sum(perThread);
            ServerCost cost = ServerSnapshot.cost(before, after, acquisitions);
            Calibration calibration = calibrate(load, context, end, lockNames);
            Double failed = failedAttempts == null ? null
                    : failedAttempts.perAcquisition(cost, calibration.scriptsEndingWithPttl());
            return new ScenarioResult(acquisitions / seconds, perThread, cost, calibration.roundTrips(),
                    context.keysLeft(tag, lockNames), null).withFailedAttempts(failed);
        }
    }

    /** What the {@code MONITOR} pass counted, per acquisition of the pass. */
    private record Calibration(double roundTrips, double scriptsEndingWithPttl) {
    }

    private static Calibration calibrate(Load load, BenchContext context, long[] start,
            Collection<String> lockNames) {
        try (MonitorCounter monitor = MonitorCounter.start(context.admins(), lockNames)) {
            long acquisitions = sum(minus(runUntilAnAcquisition(load, context.calibration(), start), start));
            long commands = monitor.finish();
            return new Calibration((double) commands / acquisitions,
                    (double) monitor.scriptsEndingWithPttl() / acquisitions);
        }
    }

    /**
     * Runs the load for {@code window}, and for more windows while not one acquisition was made
     * since {@code start} (a very short window on a cold JVM), up to {@link #MAX_EXTRA_WINDOWS}
     * more; returns the counts at the final pause.
     *
     * @throws IllegalStateException when still nothing was acquired
     */
    private static long[] runUntilAnAcquisition(Load load, java.time.Duration window, long[] start) {
        long[] end = start;
        for (int i = 0; i <= MAX_EXTRA_WINDOWS && sum(minus(end, start)) == 0; i++) {
            load.resume();
            BenchContext.sleep(window);
            end = load.pause();
        }
        if (sum(minus(end, start)) == 0) {
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
