package dev.padlock.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Scenarios 6a, 6b and 6c: how long after an unlock the waiter returns. The holder takes the lock
 * (30 s lease), the waiter starts its acquisition and is given {@value #PARK_MILLIS} ms to
 * subscribe and park; then the time runs from just before {@code unlock()} to the waiter's
 * return. In 6a the waiter is a thread with a second client (which wakes through pub/sub, as a
 * waiter in another JVM does), in 6b a thread with the holder's own client, both in
 * {@code tryLock(10 s, 30 s)}; in 6c it is a {@link WaiterWorker} JVM in {@code lock(30 s)}, whose
 * {@link System#nanoTime()} at the return is compared with this JVM's (both read
 * {@code CLOCK_MONOTONIC} on Linux, one clock for every process of the machine).
 */
final class WakeUpLatencyScenario implements Scenario {

    /** Where the waiter runs. */
    enum Place {
        /** A thread of this JVM with a client of its own. */
        OTHER_CLIENT("wake-up latency, waiter in another client (pub/sub, as across JVMs)", 100, 1_000),
        /** A thread of this JVM with the holder's client. */
        SAME_CLIENT("wake-up latency, waiter in the same client", 100, 1_000),
        /** A worker JVM. */
        OTHER_JVM("wake-up latency, waiter in another JVM", 100, 300);

        private final String title;
        private final int warmUpSamples;
        private final int samples;

        Place(String title, int warmUpSamples, int samples) {
            this.title = title;
            this.warmUpSamples = warmUpSamples;
            this.samples = samples;
        }

        /** The samples taken per library and round, after {@link #warmUpSamples()}. */
        int samples() {
            return samples;
        }

        int warmUpSamples() {
            return warmUpSamples;
        }
    }

    private static final int CALIBRATION_SAMPLES = 50;
    private static final int COST_SAMPLES = 200;
    private static final long PARK_MILLIS = 10;
    private static final long WAIT_MILLIS = 10_000;
    private static final Duration SAMPLE_TIMEOUT = Duration.ofSeconds(20);

    private final String id;
    private final Place place;

    WakeUpLatencyScenario(String id, Place place) {
        this.id = id;
        this.place = place;
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String title() {
        return place.title;
    }

    @Override
    public boolean measuresThroughput() {
        return false;
    }

    @Override
    public boolean contended() {
        return true;
    }

    @Override
    public ScenarioResult run(LockLibrary library, BenchContext context) throws Exception {
        return runInterleaved(List.of(library), context).get(library.name());
    }

    /**
     * Latency samples alternate between the libraries one at a time (the order flips every
     * sample), so a noisy moment on the machine hits both alike; the server cost and the round
     * trips are then measured for each library alone, since they come from server-wide counters.
     */
    @Override
    public Map<String, ScenarioResult> runInterleaved(List<LockLibrary> libraries, BenchContext context)
            throws Exception {
        List<Rig> rigs = new ArrayList<>();
        Throwable failure = null;
        try {
            for (LockLibrary library : libraries) {
                rigs.add(new Rig(library, context));
            }
            sampleAlternately(rigs, place.warmUpSamples);
            long[][] micros = sampleAlternately(rigs, place.samples);
            Map<String, ScenarioResult> results = new LinkedHashMap<>();
            for (int r = 0; r < rigs.size(); r++) {
                results.put(rigs.get(r).library.name(), rigs.get(r).result(micros[r], context));
            }
            return results;
        } catch (Exception | Error e) {
            failure = e;
            throw e;
        } finally {
            closeAll(rigs, failure);
        }
    }

    /**
     * Closes every rig, each even when another failed; a failure is added to {@code failure} when
     * there is one, else the first is thrown with the others suppressed.
     */
    private static void closeAll(List<Rig> rigs, Throwable failure) {
        RuntimeException closing = null;
        for (Rig rig : rigs) {
            try {
                rig.close();
            } catch (RuntimeException e) {
                if (failure != null) {
                    failure.addSuppressed(e);
                } else if (closing == null) {
                    closing = e;
                } else {
                    closing.addSuppressed(e);
                }
            }
        }
        if (closing != null) {
            throw closing;
        }
    }

    private static long[][] sampleAlternately(List<Rig> rigs, int count) throws Exception {
        long[][] micros = new long[rigs.size()][count];
        for (int i = 0; i < count; i++) {
            for (int k = 0; k < rigs.size(); k++) {
                int r = i % 2 == 0 ? k : rigs.size() - 1 - k;
                micros[r][i] = TimeUnit.NANOSECONDS.toMicros(rigs.get(r).sampler.sample());
            }
        }
        return micros;
    }

    /** One library's holder and waiter for this scenario. */
    private final class Rig implements AutoCloseable {
        final LockLibrary library;
        final String tag;
        final String name;
        final List<AutoCloseable> resources = new ArrayList<>();
        final Sampler sampler;

        Rig(LockLibrary library, BenchContext context) {
            this.library = library;
            this.tag = BenchContext.newTag(id, library);
            this.name = BenchContext.lockName(tag, 0);
            try {
                LockLibrary.Client holderClient = library.connect(context.target());
                resources.add(holderClient);
                Waiter waiter;
                switch (place) {
                    case OTHER_CLIENT:
                        LockLibrary.Client waiterClient = library.connect(context.target());
                        resources.add(waiterClient);
                        waiter = new ThreadWaiter(library, waiterClient.lock(name));
                        break;
                    case SAME_CLIENT:
                        waiter = new ThreadWaiter(library, holderClient.lock(name));
                        break;
                    case OTHER_JVM:
                        waiter = new ProcessWaiter(library, context.target(), name);
                        break;
                    default:
                        throw new IllegalStateException("Unknown place " + place);
                }
                resources.add(waiter);
                this.sampler = new Sampler(holderClient.lock(name), waiter);
            } catch (RuntimeException e) {
                close();
                throw e;
            }
        }

        /** The result with {@code micros}, and this library's server cost and round trips measured alone. */
        ScenarioResult result(long[] micros, BenchContext context) throws Exception {
            ServerSnapshot before = ServerSnapshot.take(context.admins());
            sampler.samples(COST_SAMPLES);
            ServerSnapshot after = ServerSnapshot.take(context.admins());
            ServerCost cost = ServerSnapshot.cost(before, after, 2L * COST_SAMPLES);
            double roundTrips;
            try (MonitorCounter monitor = MonitorCounter.start(context.admins())) {
                sampler.samples(CALIBRATION_SAMPLES);
                roundTrips = (double) monitor.finish() / (2L * CALIBRATION_SAMPLES);
            }
            long[] sorted = micros.clone();
            Arrays.sort(sorted);
            ScenarioResult.Latency latency = new ScenarioResult.Latency(percentile(sorted, 50),
                    percentile(sorted, 99), sorted.length);
            return new ScenarioResult(null, null, cost, roundTrips, context.keysLeft(tag, List.of(name)), latency);
        }

        /** Closes the waiter, then the clients, the holder's last; the first failure is thrown. */
        @Override
        public void close() {
            RuntimeException failure = null;
            for (int i = resources.size() - 1; i >= 0; i--) {
                try {
                    resources.get(i).close();
                } catch (Exception e) {
                    RuntimeException wrapped = e instanceof RuntimeException ? (RuntimeException) e
                            : new IllegalStateException(e);
                    if (failure == null) {
                        failure = wrapped;
                    } else {
                        failure.addSuppressed(wrapped);
                    }
                }
            }
            resources.clear();
            if (failure != null) {
                throw failure;
            }
        }
    }

    /** Nearest rank of a sorted sample. */
    static long percentile(long[] sorted, double percent) {
        int rank = (int) Math.ceil(percent / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    /** Takes samples: two acquisitions each, one by the holder and one by the waiter. */
    private static final class Sampler {

        private final BenchLock holder;
        private final Waiter waiter;

        Sampler(BenchLock holder, Waiter waiter) {
            this.holder = holder;
            this.waiter = waiter;
        }

        long[] samples(int count) throws Exception {
            long[] micros = new long[count];
            for (int i = 0; i < count; i++) {
                micros[i] = TimeUnit.NANOSECONDS.toMicros(sample());
            }
            return micros;
        }

        private long sample() throws Exception {
            holder.lock(UncontendedScenario.LEASE_MILLIS);
            waiter.start();
            Thread.sleep(PARK_MILLIS);
            long unlockAt = System.nanoTime();
            holder.unlock();
            long acquiredAt = waiter.acquiredAt();
            if (acquiredAt < unlockAt) {
                throw new IllegalStateException("The waiter acquired " + (unlockAt - acquiredAt)
                        + " ns before the holder's unlock: its clock is not this JVM's, or the lock was not held");
            }
            return acquiredAt - unlockAt;
        }
    }

    /** The waiter of a sample, a thread or another JVM. */
    private interface Waiter extends AutoCloseable {

        /** Starts an acquisition of the lock; returns once the waiter is about to call it. */
        void start() throws Exception;

        /**
         * Waits (bounded) for the acquisition started last and returns the {@link System#nanoTime()}
         * at which it returned; the waiter has released the lock by then.
         */
        long acquiredAt() throws Exception;

        @Override
        void close();
    }

    /** A thread of this JVM in {@code tryLock(10 s, 30 s)}. */
    private static final class ThreadWaiter implements Waiter {

        private final BenchLock lock;
        private final ExecutorService thread;
        private Future<Long> acquisition;

        ThreadWaiter(LockLibrary library, BenchLock lock) {
            this.lock = lock;
            this.thread = Executors.newSingleThreadExecutor(runnable -> {
                Thread waiter = new Thread(runnable, "bench-waiter-" + library.name());
                waiter.setDaemon(true);
                return waiter;
            });
        }

        @Override
        public void start() throws InterruptedException {
            CountDownLatch started = new CountDownLatch(1);
            acquisition = thread.submit(() -> {
                started.countDown();
                if (!lock.tryLock(WAIT_MILLIS, UncontendedScenario.LEASE_MILLIS)) {
                    throw new IllegalStateException("The waiter was not woken within " + WAIT_MILLIS + " ms");
                }
                long acquiredAt = System.nanoTime();
                lock.unlock();
                return acquiredAt;
            });
            if (!started.await(SAMPLE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("The waiter thread did not start within " + SAMPLE_TIMEOUT);
            }
        }

        @Override
        public long acquiredAt() throws Exception {
            return acquisition.get(SAMPLE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }

        @Override
        public void close() {
            thread.shutdownNow();
        }
    }

    /** A {@link WaiterWorker} JVM in {@code lock(30 s)}. */
    private static final class ProcessWaiter implements Waiter {

        private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

        private final WorkerProcess worker;

        ProcessWaiter(LockLibrary library, RedisTarget target, String name) {
            worker = WorkerProcess.launch("waiter JVM", WaiterWorker.class, List.of(library.name(), target.argument(),
                    name, String.valueOf(UncontendedScenario.LEASE_MILLIS)));
            try {
                worker.expect("READY", READY_TIMEOUT);
            } catch (RuntimeException e) {
                try {
                    worker.stop();
                } catch (RuntimeException stopping) {
                    e.addSuppressed(stopping);
                }
                throw e;
            }
        }

        @Override
        public void start() {
            worker.send("WAIT");
            worker.expect("WAITING", SAMPLE_TIMEOUT);
        }

        @Override
        public long acquiredAt() {
            String line = worker.expect("ACQUIRED ", SAMPLE_TIMEOUT);
            return Long.parseLong(line.substring("ACQUIRED ".length()).trim());
        }

        @Override
        public void close() {
            worker.stop();
        }
    }
}
