package dev.padlock.bench;

import java.util.List;

/** Scenarios 3 and 3b: threads of one client contend for one lock (fixed lease). */
final class OneLockScenario implements Scenario {

    private final String id;
    private final int threads;

    OneLockScenario(String id, int threads) {
        this.id = id;
        this.threads = threads;
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String title() {
        return "one lock, " + threads + " threads of one client";
    }

    @Override
    public boolean contended() {
        return true;
    }

    @Override
    public ScenarioResult run(LockLibrary library, BenchContext context) {
        String tag = BenchContext.newTag(id, library);
        String name = BenchContext.lockName(tag, 0);
        try (LockLibrary.Client client = library.connect(context.target())) {
            LockLoop loop = new LockLoop("bench-" + id, threads, i -> {
                BenchLock lock = client.lock(name);
                return () -> {
                    lock.lock(UncontendedScenario.LEASE_MILLIS);
                    lock.unlock();
                };
            });
            return ThroughputMeasurement.measure(loop, context, tag, List.of(name));
        }
    }
}
