package dev.padlock.bench;

import java.util.List;

/**
 * Scenario 5: threads of one client, each on a lock of its own (fixed lease); on a cluster the
 * locks are spread evenly over the masters ({@link BenchContext#lockNames}).
 */
final class OwnLocksScenario implements Scenario {

    private static final int THREADS = 16;

    @Override
    public String id() {
        return "5";
    }

    @Override
    public String title() {
        return THREADS + " threads of one client, a lock each";
    }

    @Override
    public ScenarioResult run(LockLibrary library, BenchContext context) {
        String tag = BenchContext.newTag(id(), library);
        List<String> names = context.lockNames(tag, THREADS);
        try (LockLibrary.Client client = library.connect(context.target())) {
            LockLoop loop = new LockLoop("bench-" + id(), THREADS, i -> {
                BenchLock lock = client.lock(names.get(i));
                return () -> {
                    lock.lock(UncontendedScenario.LEASE_MILLIS);
                    lock.unlock();
                };
            });
            return ThroughputMeasurement.measure(loop, context, tag, names);
        }
    }
}
