package dev.padlock.bench;

import java.util.List;
import java.util.Locale;

/**
 * Scenario 11a: worker JVMs ({@link ProcessLoad}), each with its own client and
 * {@value MultiProcessScenario#THREADS} threads, contend for one counting semaphore of
 * {@value #PERMITS} permits ({@link ContendedLock#SEMAPHORE}): {@code acquire()} +
 * {@code release()} of one permit with nothing in between. Before the run a client of the library
 * sets the permits with {@code trySetPermits}; after it, every worker stopped, the count on Redis
 * must be {@value #PERMITS} again, else the round fails: a permit was lost (or one made). The
 * semaphore's key is deleted after the run, whether it was measured or not. The table shows the
 * headline figures, the failed attempts ({@link FailedAttempts#GETS_BEYOND_DECRBYS}), the free
 * permits after the run and the spread over JVMs and threads; the chart leaves it out, as it does
 * the series 8a-10b.
 */
final class SemaphoreScenario implements Scenario {

    static final int PERMITS = 4;

    private final String id;
    private final int processes;

    private SemaphoreScenario(String id, int processes) {
        this.id = id;
        this.processes = processes;
    }

    /** Scenario 11a: 4 JVMs, so 16 threads for the 4 permits. */
    static Scenario fourProcesses() {
        return new SemaphoreScenario("11a", 4);
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String title() {
        return "one semaphore of " + PERMITS + " permits, " + processes + (processes == 1 ? " JVM" : " JVMs") + " x "
                + MultiProcessScenario.THREADS + " threads";
    }

    @Override
    public boolean contended() {
        return true;
    }

    @Override
    public boolean compact() {
        return true;
    }

    @Override
    public boolean charted() {
        return false;
    }

    @Override
    public ScenarioResult run(LockLibrary library, BenchContext context) {
        String tag = BenchContext.newTag(id, library);
        String name = BenchContext.lockName(tag, 0);
        try (LockLibrary.Client client = library.connect(context.target())) {
            if (!client.semaphore(name).trySetPermits(PERMITS)) {
                throw new IllegalStateException("Semaphore " + name + " had its permits set already");
            }
        }
        ScenarioResult result;
        try {
            ProcessLoad load = new ProcessLoad(library, context.target(), name, processes,
                    MultiProcessScenario.THREADS, UncontendedScenario.LEASE_MILLIS, ContendedLock.SEMAPHORE, 0);
            result = ThroughputMeasurement.measure(load, context, tag, List.of(name),
                    FailedAttempts.of(library, ContendedLock.SEMAPHORE));
        } catch (RuntimeException e) {
            try {
                context.getAndDelete(name);
            } catch (RuntimeException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
        int permits = requireAllPermits(name, context.getAndDelete(name));
        return result.withPerProcess(ProcessLoad.perProcess(result.perThread(), MultiProcessScenario.THREADS))
                .withFreePermitsAfter(permits);
    }

    /**
     * The free permits of semaphore {@code name}, whose count on Redis is {@code count} (null when
     * the key is absent).
     *
     * @throws IllegalStateException unless that is {@value #PERMITS}
     */
    static int requireAllPermits(String name, String count) {
        if (count == null) {
            throw new IllegalStateException("Semaphore " + name + " has no count on Redis after the run, expected "
                    + PERMITS + " free permits");
        }
        int permits = Integer.parseInt(count);
        if (permits != PERMITS) {
            throw new IllegalStateException(String.format(Locale.ROOT,
                    "Semaphore %s has %d free permits on Redis after the run, expected %d: %d %s", name, permits,
                    PERMITS, Math.abs(PERMITS - permits), permits < PERMITS ? "lost" : "made"));
        }
        return permits;
    }
}
