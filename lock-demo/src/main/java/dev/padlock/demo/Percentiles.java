package dev.padlock.demo;

import java.util.Arrays;

/** Nearest-rank percentiles of a sample. Immutable. */
final class Percentiles {

    private final long[] sorted;

    Percentiles(long[] samples) {
        this.sorted = samples.clone();
        Arrays.sort(sorted);
    }

    int count() {
        return sorted.length;
    }

    /**
     * The smallest value with at least {@code percent}% of the sample at or below it.
     *
     * @throws IllegalStateException when the sample is empty
     */
    long percentile(double percent) {
        if (sorted.length == 0) {
            throw new IllegalStateException("No samples");
        }
        int rank = (int) Math.ceil(percent / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    /** Microseconds written for people: {@code 840 us}, {@code 1.92 ms}. */
    static String formatMicros(long micros) {
        if (micros < 1_000) {
            return micros + " us";
        }
        if (micros < 1_000_000) {
            return String.format("%.2f ms", micros / 1_000.0);
        }
        return String.format("%.2f s", micros / 1_000_000.0);
    }
}
