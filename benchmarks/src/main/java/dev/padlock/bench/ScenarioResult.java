package dev.padlock.bench;

/**
 * One library's figures for one scenario. Throughput scenarios fill {@code acquisitionsPerSecond}
 * and {@code perThread}; latency scenarios fill {@code latency}; the rest is always there.
 *
 * @param acquisitionsPerSecond null for a latency scenario
 * @param perThread acquisitions per thread in the measured window; null for a latency scenario
 * @param cost the server's work over the measured window
 * @param roundTripsPerAcquisition top-level client commands per acquisition, from the
 *     {@code MONITOR} calibration pass
 * @param keysLeft keys of this run other than the locks themselves, right after it
 * @param latency null for a throughput scenario
 */
record ScenarioResult(Double acquisitionsPerSecond, long[] perThread, ServerCost cost,
        double roundTripsPerAcquisition, long keysLeft, Latency latency) {

    /** Wake-up latency: from just before the holder's unlock to the waiter's return. */
    record Latency(long p50Micros, long p99Micros, int samples) {
    }

    long fewestPerThread() {
        long fewest = Long.MAX_VALUE;
        for (long count : perThread) {
            fewest = Math.min(fewest, count);
        }
        return fewest;
    }

    long mostPerThread() {
        long most = 0;
        for (long count : perThread) {
            most = Math.max(most, count);
        }
        return most;
    }
}
