package dev.padlock.bench;

import java.util.ArrayList;
import java.util.List;

/** Scenario 5: threads of one client, each on a lock of its own (fixed lease). */
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
        List<String> names = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            names.add(BenchContext.lockName(tag, i));
        }
        try (LockLibrary.Client client = library.connect(context.redisUri())) {
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
