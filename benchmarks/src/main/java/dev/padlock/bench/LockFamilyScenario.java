package dev.padlock.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * Scenarios 7a-7i, the lock family: {@code lock(30 s)} + {@code unlock()} on one lock of each
 * {@link LockKind}, by one thread on a lock no one else wants, and by a few threads of one client
 * on one fair lock. The table shows only acquisitions/s, Redis calls and round trips for them, and
 * the chart leaves them out. The floor runs the plain lock's row (7a) too.
 *
 * <p>The components of a multi or red lock are locks of different names from one client: on
 * one server all on that server, so the red lock's row shows what the algorithm costs, not what
 * three independent servers would; on a cluster one on each master.
 */
final class LockFamilyScenario implements Scenario {

    private final String id;
    private final LockKind kind;
    private final int threads;
    private final Topology topology;

    LockFamilyScenario(String id, LockKind kind, int threads, Topology topology) {
        this.id = id;
        this.kind = kind;
        this.threads = threads;
        this.topology = topology;
    }

    /**
     * The family on {@code topology}, in the order it runs: each kind uncontended, then the fair
     * lock with 4 threads.
     */
    static List<Scenario> all(Topology topology) {
        List<Scenario> scenarios = new ArrayList<>();
        char letter = 'a';
        for (LockKind kind : LockKind.values()) {
            scenarios.add(new LockFamilyScenario("7" + letter++, kind, 1, topology));
        }
        scenarios.add(new LockFamilyScenario("7" + letter, LockKind.FAIR, 4, topology));
        return List.copyOf(scenarios);
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String title() {
        String title = threads == 1 ? "uncontended " + kind.call() : kind.call() + ", " + threads + " threads of one client";
        if (kind != LockKind.RED) {
            return title;
        }
        return topology == Topology.SINGLE
                ? title + " on one server (not independent ones)"
                : title + ", one on each master, one client";
    }

    @Override
    public boolean compact() {
        return true;
    }

    @Override
    public boolean charted() {
        return false;
    }

    /** The plain lock taken by one thread (7a): the floor has no other kind and does not wait. */
    @Override
    public boolean withFloor() {
        return kind == LockKind.LOCK && threads == 1;
    }

    @Override
    public ScenarioResult run(LockLibrary library, BenchContext context) {
        String tag = BenchContext.newTag(id, library);
        List<String> names = context.lockNames(tag, kind.locks());
        try (LockLibrary.Client client = library.connect(context.target())) {
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
