package dev.padlock.bench;

import java.util.List;

/**
 * Scenarios 1, 1b and 2: one thread acquires and releases a lock no one else wants; the floor
 * ({@link FloorLibrary}) runs them too.
 */
final class UncontendedScenario implements Scenario {

    /** Which acquisition the pair uses. */
    enum Pair {
        /** {@code lock(30 s)} + {@code unlock()}. */
        FIXED_LEASE("lock(30 s) + unlock"),
        /** {@code lock()} + {@code unlock()}: the watchdog renews the lease. */
        WATCHDOG("lock() + unlock, watchdog"),
        /** {@code tryLock()} + {@code unlock()}. */
        TRY_LOCK("tryLock() + unlock");

        private final String title;

        Pair(String title) {
            this.title = title;
        }
    }

    static final long LEASE_MILLIS = 30_000;

    private final String id;
    private final Pair pair;

    UncontendedScenario(String id, Pair pair) {
        this.id = id;
        this.pair = pair;
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String title() {
        return "uncontended " + pair.title;
    }

    @Override
    public boolean withFloor() {
        return true;
    }

    @Override
    public ScenarioResult run(LockLibrary library, BenchContext context) {
        String tag = BenchContext.newTag(id, library);
        String name = BenchContext.lockName(tag, 0);
        try (LockLibrary.Client client = library.connect(context.target())) {
            BenchLock lock = client.lock(name);
            LockLoop loop = new LockLoop("bench-" + id, 1, i -> () -> once(lock));
            return ThroughputMeasurement.measure(loop, context, tag, List.of(name));
        }
    }

    private void once(BenchLock lock) {
        switch (pair) {
            case FIXED_LEASE:
                lock.lock(LEASE_MILLIS);
                break;
            case WATCHDOG:
                lock.lockWithWatchdog();
                break;
            case TRY_LOCK:
                if (!lock.tryLock()) {
                    throw new IllegalStateException("tryLock() failed on an uncontended lock");
                }
                break;
            default:
                throw new IllegalStateException("Unknown pair " + pair);
        }
        lock.unlock();
    }
}
