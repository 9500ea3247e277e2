package dev.padlock.sim;

/**
 * The shape of one simulated run: its clients, owners, timings and which faults strike.
 *
 * @param steps events to run in all, over as many episodes as that takes
 * @param episodeOperations planned operations (acquisitions, releases, faults) per episode
 */
record SimConfig(long seed, long steps, int clients, int ownersPerClient, int episodeOperations,
        long commandTimeoutMillis, long watchdogMillis, long fairWaiterMillis, boolean clientRegistry, boolean faults) {
    static final String PLAIN = "p";
    static final String SPIN = "s";
    static final String FENCED = "fe";
    static final String FAIR = "fa";
    static final String READ_WRITE = "rw";
    static final String MULTI = "m";
    /** The multi lock takes the plain and the fair lock, which owners also take alone. */
    static final java.util.List<String> MULTI_COMPONENTS = java.util.List.of(PLAIN, FAIR);
    static final String RED = "r";
    /** A multi lock of plain locks of one client (issue 41: one script call each way): the plain lock and one of its own. */
    static final String BATCH = "b";
    static final java.util.List<String> BATCH_COMPONENTS = java.util.List.of("b2", PLAIN);
    /** The counted semaphore ({@code RSemaphore}) of the episodes that run semaphores. */
    static final String SEMAPHORE = "sm";
    /** The permit-expirable semaphore of the episodes that run semaphores. */
    static final String PERMITS = "ps";
    static final java.util.List<String> RED_COMPONENTS = java.util.List.of("r1", "r2", "r3");

    static SimConfig of(long seed, long steps) {
        return new SimConfig(seed, steps, 3, 2, 60, 500, 3_000, 2_000, true, true);
    }

    SimConfig withOperations(int operations) {
        return new SimConfig(seed, steps, clients, ownersPerClient, operations, commandTimeoutMillis, watchdogMillis,
                fairWaiterMillis, clientRegistry, faults);
    }
}
