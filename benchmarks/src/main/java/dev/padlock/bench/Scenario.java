package dev.padlock.bench;

import java.util.List;
import java.util.Map;

/** One measured situation, written once and run for every {@link LockLibrary}. */
interface Scenario {

    /** The id used by {@code --scenarios}, e.g. {@code 3b}. */
    String id();

    /** A short description for the table, e.g. {@code one lock, 16 threads}. */
    String title();

    /** Whether the scenario measures acquisitions/s (and belongs in the chart). */
    default boolean measuresThroughput() {
        return true;
    }

    /**
     * Whether the table shows only the headline rows: acquisitions/s, Redis calls and round
     * trips per acquisition (and, where there are any, the failed attempts per acquisition and
     * the per-process and per-thread spread).
     */
    default boolean compact() {
        return false;
    }

    /**
     * Whether threads or clients contend for one lock, so that waiters are woken: on a cluster
     * the table then shows the pub/sub commands per acquisition.
     */
    default boolean contended() {
        return false;
    }

    /**
     * Whether the table, on a cluster, also shows the round trips per acquisition divided by the
     * number of masters (the multi lock's rows, 12a-12c).
     */
    default boolean roundTripsPerMaster() {
        return false;
    }

    /** Whether the scenario's acquisitions/s belong in the chart. */
    default boolean charted() {
        return measuresThroughput();
    }

    /**
     * Whether the floor ({@link LockLibrary#floor()}) runs the scenario beside the two libraries:
     * only where one thread takes a plain lock no one else wants, since the floor does not wait.
     */
    default boolean withFloor() {
        return false;
    }

    /** Runs the scenario for {@code library} and cleans up after itself. */
    ScenarioResult run(LockLibrary library, BenchContext context) throws Exception;

    /**
     * Runs the scenario for all {@code libraries} at once, alternating between them sample by
     * sample so that both see the same machine; null when the scenario measures one library at a
     * time.
     */
    default Map<String, ScenarioResult> runInterleaved(List<LockLibrary> libraries, BenchContext context)
            throws Exception {
        return null;
    }
}
