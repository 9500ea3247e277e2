package dev.padlock.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Scenarios 12a-12c: one thread takes and releases a multi lock of many plain locks that no one
 * else wants: {@code lock()} (a watchdog lease) then {@code unlock()} of the whole multi lock,
 * {@code getMultiLock} over {@code getLock} components of one client in both libraries
 * ({@link LockLibrary.Client#multiLock}). 12a has {@value #HUNDRED} components, 12b
 * {@value #THOUSAND}; on a cluster 12c has {@value #HUNDRED} whose names share one hash tag per
 * master ({@link BenchContext#hashTaggedLockNames}), the names of 12a and 12b having none (each in
 * a slot of its own, spread evenly over the masters by {@link BenchContext#lockNames}): a script
 * over keys of different slots is refused ({@code CROSSSLOT}), so only 12c lets a library take a
 * master's components in one call.
 *
 * <p>Every iteration locks and unlocks the same names: each is released before the next
 * iteration, so none re-enters a lock; what a library keeps between holds of one name (a local
 * queue, the components' objects) is kept, as it is for an application that locks one set of
 * resources again and again. Acquisitions are multi-lock acquisitions, so every figure per
 * acquisition is per lock-and-unlock of the whole multi lock. After the run (the load stopped, the
 * client still open) no lock key may be left on Redis: the round fails otherwise, the keys
 * deleted; they are deleted also when the run itself fails.
 */
final class MultiLockScenario implements Scenario {

    static final int HUNDRED = 100;
    static final int THOUSAND = 1_000;

    /** How the components are named. */
    enum Names {
        /** {@link BenchContext#lockNames}: no hash tag, spread evenly over a cluster's masters. */
        SPREAD,
        /** {@link BenchContext#hashTaggedLockNames}: one hash tag, so one slot, per master. */
        TAG_PER_MASTER
    }

    private final String id;
    private final int locks;
    private final Names names;
    private final Topology topology;

    MultiLockScenario(String id, int locks, Names names, Topology topology) {
        this.id = id;
        this.locks = locks;
        this.names = names;
        this.topology = topology;
    }

    /** The scenarios on {@code topology}, in the order they run: 12a, 12b, and 12c on a cluster. */
    static List<Scenario> all(Topology topology) {
        List<Scenario> scenarios = new ArrayList<>(List.of(
                new MultiLockScenario("12a", HUNDRED, Names.SPREAD, topology),
                new MultiLockScenario("12b", THOUSAND, Names.SPREAD, topology)));
        if (topology == Topology.CLUSTER) {
            scenarios.add(new MultiLockScenario("12c", HUNDRED, Names.TAG_PER_MASTER, topology));
        }
        return List.copyOf(scenarios);
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String title() {
        String title = String.format(Locale.ROOT, "uncontended multi lock of %,d locks, lock() + unlock()", locks);
        if (topology == Topology.SINGLE) {
            return title;
        }
        return title + (names == Names.SPREAD ? ", no hash tag (a slot each)"
                : ", a hash tag per master (" + Topology.CLUSTER_MASTERS + " slots)");
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
    public boolean roundTripsPerMaster() {
        return true;
    }

    @Override
    public ScenarioResult run(LockLibrary library, BenchContext context) {
        String tag = BenchContext.newTag(id, library);
        List<String> lockNames = names == Names.SPREAD ? context.lockNames(tag, locks)
                : context.hashTaggedLockNames(tag, locks);
        try (LockLibrary.Client client = library.connect(context.target())) {
            BenchLock multiLock = client.multiLock(lockNames);
            LockLoop loop = new LockLoop("bench-" + id, 1, i -> () -> {
                multiLock.lockWithWatchdog();
                multiLock.unlock();
            });
            ScenarioResult result;
            try {
                result = ThroughputMeasurement.measure(loop, context, tag, lockNames);
            } catch (RuntimeException e) {
                try {
                    context.delete(context.lockKeysPresent(tag, lockNames));
                } catch (RuntimeException cleanup) {
                    e.addSuppressed(cleanup);
                }
                throw e;
            }
            List<String> left = context.lockKeysPresent(tag, lockNames);
            context.delete(left);
            requireNoLockLeft(lockNames.size(), left);
            return result;
        }
    }

    /**
     * Checks that none of a multi lock's {@code components} lock keys is on Redis after the run.
     *
     * @param left the keys found
     * @throws IllegalStateException when {@code left} is not empty
     */
    static void requireNoLockLeft(int components, List<String> left) {
        if (!left.isEmpty()) {
            throw new IllegalStateException(String.format(Locale.ROOT,
                    "%d of the multi lock's %d lock keys are still on Redis after the run (every iteration unlocked"
                            + " them all): %s",
                    left.size(), components, left.size() <= 5 ? left : left.subList(0, 5) + " ..."));
        }
    }
}
