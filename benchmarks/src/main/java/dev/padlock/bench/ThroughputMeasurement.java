package dev.padlock.bench;

import java.util.Collection;

/**
 * The measurement every throughput scenario shares: warm up, measure a window between two
 * pauses (counts and server stats are exact there), then a short {@code MONITOR} pass for the
 * round trips, then look for keys left behind (the load is paused by then) and close the load.
 */
final class ThroughputMeasurement {

    private ThroughputMeasurement() {
    }

    /** Measures {@code load} (created paused) and closes it. */
    static ScenarioResult measure(Load load, BenchContext context, String tag, Collection<String> lockNames) {
        try (load) {
            load.resume();
            BenchContext.sleep(context.warmUp());
            long[] start = load.pause();
            ServerSnapshot before = ServerSnapshot.take(context.admins());
            long startNanos = System.nanoTime();
            load.resume();
            BenchContext.sleep(context.measured());
            long[] end = load.pause();
            double seconds = (System.nanoTime() - startNanos) / 1e9;
            ServerSnapshot after = ServerSnapshot.take(context.admins());

            long[] perThread = minus(end, start);
            long acquisitions = sum(perThread);
            if (acquisitions == 0) {
                throw new IllegalStateException("No acquisition in " + context.measured());
            }
            ServerCost cost = ServerSnapshot.cost(before, after, acquisitions);
            double roundTrips = calibrateRoundTrips(load, context, end);
            return new ScenarioResult(acquisitions / seconds, perThread, cost, roundTrips,
                    context.keysLeft(tag, lockNames), null);
        }
    }

    private static double calibrateRoundTrips(Load load, BenchContext context, long[] start) {
        try (MonitorCounter monitor = MonitorCounter.start(context.admins())) {
            load.resume();
            BenchContext.sleep(context.calibration());
            long acquisitions = sum(minus(load.pause(), start));
            long commands = monitor.finish();
            if (acquisitions == 0) {
                throw new IllegalStateException("No acquisition in the MONITOR pass");
            }
            return (double) commands / acquisitions;
        }
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
