package dev.padlock.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * Scenarios 7a-7i, the lock family: {@code lock(30 s)} + {@code unlock()} on one lock of each
 * {@link LockKind}, by one thread on a lock no one else wants, and by a few threads of one client
 * on one fair lock. The table shows only acquisitions/s, Redis calls and round trips for them, and
 * the chart leaves them out.
 *
 * <p>The bench has one Redis server, so the red lock's components are three locks of different
 * names on that server, from one client: its row shows what the algorithm costs, not what three
 * servers would.
 */
final class LockFamilyScenario implements Scenario {

    private final String id;
    private final LockKind kind;
    private final int threads;

    LockFamilyScenario(String id, LockKind kind, int threads) {
        this.id = id;
        this.kind = kind;
        this.threads = threads;
    }

    /** The family, in the order it runs: each kind uncontended, then the fair lock with 4 threads. */
    static List<Scenario> all() {
        List<Scenario> scenarios = new ArrayList<>();
        char letter = 'a';
        for (LockKind kind : LockKind.values()) {
            scenarios.add(new LockFamilyScenario("7" + letter++, kind, 1));
        }
        scenarios.add(new LockFamilyScenario("7" + letter, LockKind.FAIR, 4));
        return List.copyOf(scenarios);
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String title() {
        String title = threads == 1 ? "uncontended " + kind.call() : kind.call() + ", " + threads + " threads of one client";
        return kind == LockKind.RED ? title + " on one server (not independent ones)" : title;
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
        List<String> names = new ArrayList<>();
        for (int i = 0; i < kind.locks(); i++) {
            names.add(BenchContext.lockName(tag, i));
        }
        try (LockLibrary.Client client = library.connect(context.redisUri())) {
            LockLoop loop = new LockLoop("bench-" + id, threads, i -> {
                BenchLock lock = client.lock(kind, names);
                return () -> {
                    lock.lock(UncontendedScenario.LEASE_MILLIS);
                    lock.unlock();
                };
            });
            return ThroughputMeasurement.measure(loop, context, tag, names);
        }
    }
}
