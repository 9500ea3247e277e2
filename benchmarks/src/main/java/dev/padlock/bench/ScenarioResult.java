package dev.padlock.bench;

/**
 * One library's figures for one scenario. Throughput scenarios fill {@code acquisitionsPerSecond}
 * and {@code perThread}; latency scenarios fill {@code latency}; multi-process scenarios also
 * {@code perProcess} and {@code failedAttemptsPerAcquisition}, a semaphore's also
 * {@code freePermitsAfter}; the rest is always there, except in a {@link #failed} result, which
 * has only its {@code failure}.
 *
 * @param acquisitionsPerSecond null for a latency scenario
 * @param perThread acquisitions per thread in the measured window; null for a latency scenario
 * @param cost the server's work over the measured window
 * @param roundTripsPerAcquisition top-level client commands per acquisition, from the
 *     {@code MONITOR} calibration pass
 * @param keysLeft keys of this run other than the locks themselves, right after it
 * @param latency null for a throughput scenario
 * @param perProcess acquisitions per worker JVM in the measured window; null unless the load
 *     ran in worker JVMs
 * @param failedAttemptsPerAcquisition acquire-script runs that did not acquire, per acquisition
 *     ({@link FailedAttempts}); null where not counted
 * @param freePermitsAfter the semaphore's free permits on Redis right after the run; null unless
 *     the scenario is a semaphore's
 * @param failure why the scenario could not be measured for this library; null when it was
 */
record ScenarioResult(Double acquisitionsPerSecond, long[] perThread, ServerCost cost,
        double roundTripsPerAcquisition, long keysLeft, Latency latency, long[] perProcess,
        Double failedAttemptsPerAcquisition, Integer freePermitsAfter, String failure) {

    /** A measured result without per-process counts or failed attempts. */
    ScenarioResult(Double acquisitionsPerSecond, long[] perThread, ServerCost cost, double roundTripsPerAcquisition,
            long keysLeft, Latency latency) {
        this(acquisitionsPerSecond, perThread, cost, roundTripsPerAcquisition, keysLeft, latency, null, null, null,
                null);
    }

    /** A scenario that could not be measured, and why. */
    static ScenarioResult failed(String failure) {
        return new ScenarioResult(null, null, null, 0, 0, null, null, null, null, failure);
    }

    /** Whether this result has no figures, only a {@link #failure}. */
    boolean failed() {
        return failure != null;
    }

    /** This result with {@code perProcess}. */
    ScenarioResult withPerProcess(long[] counts) {
        return new ScenarioResult(acquisitionsPerSecond, perThread, cost, roundTripsPerAcquisition, keysLeft, latency,
                counts, failedAttemptsPerAcquisition, freePermitsAfter, failure);
    }

    /** This result with {@code failedAttemptsPerAcquisition}. */
    ScenarioResult withFailedAttempts(Double perAcquisition) {
        return new ScenarioResult(acquisitionsPerSecond, perThread, cost, roundTripsPerAcquisition, keysLeft, latency,
                perProcess, perAcquisition, freePermitsAfter, failure);
    }

    /** This result with {@code freePermitsAfter}. */
    ScenarioResult withFreePermitsAfter(Integer permits) {
        return new ScenarioResult(acquisitionsPerSecond, perThread, cost, roundTripsPerAcquisition, keysLeft, latency,
                perProcess, failedAttemptsPerAcquisition, permits, failure);
    }

    /** Wake-up latency: from just before the holder's unlock to the waiter's return. */
    record Latency(long p50Micros, long p99Micros, int samples) {
    }

    /** The smallest of {@code counts}. */
    static long fewest(long[] counts) {
        long fewest = Long.MAX_VALUE;
        for (long count : counts) {
            fewest = Math.min(fewest, count);
        }
        return fewest;
    }

    /** The largest of {@code counts}, 0 for none. */
    static long most(long[] counts) {
        long most = 0;
        for (long count : counts) {
            most = Math.max(most, count);
        }
        return most;
    }
}
