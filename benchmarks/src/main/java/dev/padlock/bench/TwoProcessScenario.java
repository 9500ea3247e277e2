package dev.padlock.bench;

import java.util.List;

/** Scenario 4: worker JVMs, each with its own client and threads, contend for one lock. */
final class TwoProcessScenario implements Scenario {

    private static final int PROCESSES = 2;
    private static final int THREADS = 4;

    @Override
    public String id() {
        return "4";
    }

    @Override
    public String title() {
        return "one lock, " + PROCESSES + " JVMs x " + THREADS + " threads";
    }

    @Override
    public boolean contended() {
        return true;
    }

    @Override
    public ScenarioResult run(LockLibrary library, BenchContext context) {
        String tag = BenchContext.newTag(id(), library);
        String name = BenchContext.lockName(tag, 0);
        ProcessLoad load = new ProcessLoad(library, context.target(), name, PROCESSES, THREADS,
                UncontendedScenario.LEASE_MILLIS);
        return ThroughputMeasurement.measure(load, context, tag, List.of(name));
    }
}
