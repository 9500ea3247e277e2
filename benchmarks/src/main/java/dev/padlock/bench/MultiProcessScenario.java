package dev.padlock.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Worker JVMs ({@link ProcessLoad}), each with its own client and {@value #THREADS} threads,
 * contend for one {@link ContendedLock}: {@code lock(30 s)} + {@code unlock()} with nothing in
 * between. Besides the usual figures, each shows its failed attempts per acquisition
 * ({@link FailedAttempts}) and how evenly the JVMs got the lock. Scenario 4 (a plain lock, 2
 * JVMs) shows every figure; the series 8a-8d (a plain lock,
 * 1 to 8 JVMs), 9a-9c (a fair lock, 1 to 4 JVMs) and 10a-10b (a read-write lock at
 * {@value #READ_PERCENT} % reads, 2 and 4 JVMs) only the headline ones, and are left out of the
 * chart.
 */
final class MultiProcessScenario implements Scenario {

    static final int THREADS = 4;
    static final int READ_PERCENT = 90;

    private final String id;
    private final ContendedLock lock;
    private final int processes;
    private final boolean series;

    private MultiProcessScenario(String id, ContendedLock lock, int processes, boolean series) {
        this.id = id;
        this.lock = lock;
        this.processes = processes;
        this.series = series;
    }

    /** Scenario 4: one plain lock, 2 JVMs. */
    static Scenario twoProcesses() {
        return new MultiProcessScenario("4", ContendedLock.LOCK, 2, false);
    }

    /** The series 8a-8d, 9a-9c and 10a-10b, in the order they run. */
    static List<Scenario> series() {
        List<Scenario> scenarios = new ArrayList<>();
        add(scenarios, "8", ContendedLock.LOCK, 1, 2, 4, 8);
        add(scenarios, "9", ContendedLock.FAIR, 1, 2, 4);
        add(scenarios, "10", ContendedLock.READ_WRITE, 2, 4);
        return List.copyOf(scenarios);
    }

    private static void add(List<Scenario> scenarios, String number, ContendedLock lock, int... processes) {
        char letter = 'a';
        for (int count : processes) {
            scenarios.add(new MultiProcessScenario(number + letter++, lock, count, true));
        }
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String title() {
        String reads = lock == ContendedLock.READ_WRITE ? String.format(Locale.ROOT, ", %d %% reads", READ_PERCENT) : "";
        return "one " + lock.noun() + reads + ", " + processes + (processes == 1 ? " JVM" : " JVMs") + " x " + THREADS
                + " threads";
    }

    @Override
    public boolean contended() {
        return true;
    }

    @Override
    public boolean compact() {
        return series;
    }

    @Override
    public boolean charted() {
        return !series;
    }

    @Override
    public ScenarioResult run(LockLibrary library, BenchContext context) {
        String tag = BenchContext.newTag(id, library);
        String name = BenchContext.lockName(tag, 0);
        ProcessLoad load = new ProcessLoad(library, context.target(), name, processes, THREADS,
                UncontendedScenario.LEASE_MILLIS, lock, READ_PERCENT / 100.0);
        ScenarioResult result = ThroughputMeasurement.measure(load, context, tag, List.of(name),
                FailedAttempts.of(library, lock));
        return result.withPerProcess(ProcessLoad.perProcess(result.perThread(), THREADS));
    }
}
