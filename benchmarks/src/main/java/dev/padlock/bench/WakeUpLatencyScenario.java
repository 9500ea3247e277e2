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
 * Scenarios 6a and 6b: how long after an unlock the waiter returns from {@code tryLock}. The
 * holder takes the lock (30 s lease), the waiter starts {@code tryLock(10 s, 30 s)} on a thread
 * of its own and is given {@value #PARK_MILLIS} ms to subscribe and park; then the time runs from
 * just before {@code unlock()} to the waiter's return. In 6a the waiter uses a second client
 * (which wakes through pub/sub, as a waiter in another JVM does); in 6b the holder's own.
 */
final class WakeUpLatencyScenario implements Scenario {

    static final int WARM_UP_SAMPLES = 100;
    static final int SAMPLES = 1_000;
    private static final int CALIBRATION_SAMPLES = 50;
    private static final int COST_SAMPLES = 200;
    private static final long PARK_MILLIS = 10;
    private static final long WAIT_MILLIS = 10_000;
    private static final Duration SAMPLE_TIMEOUT = Duration.ofSeconds(20);

    private final String id;
    private final boolean otherClient;

    WakeUpLatencyScenario(String id, boolean otherClient) {
        this.id = id;
        this.otherClient = otherClient;
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String title() {
        return otherClient
                ? "wake-up latency, waiter in another client (pub/sub, as across JVMs)"
                : "wake-up latency, waiter in the same client";
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
        try {
            for (LockLibrary library : libraries) {
                rigs.add(new Rig(library, context));
            }
            sampleAlternately(rigs, WARM_UP_SAMPLES);
            long[][] micros = sampleAlternately(rigs, SAMPLES);
            Map<String, ScenarioResult> results = new LinkedHashMap<>();
            for (int r = 0; r < rigs.size(); r++) {
                results.put(rigs.get(r).library.name(), rigs.get(r).result(micros[r], context));
            }
            return results;
        } finally {
            for (Rig rig : rigs) {
                rig.close();
            }
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

    /** One library's holder, waiter and waiter thread for this scenario. */
    private final class Rig implements AutoCloseable {
        final LockLibrary library;
        final String tag;
        final String name;
        final LockLibrary.Client holderClient;
        final LockLibrary.Client waiterClient;
        final ExecutorService waiterThread;
        final Sampler sampler;

        Rig(LockLibrary library, BenchContext context) {
            this.library = library;
            this.tag = BenchContext.newTag(id, library);
            this.name = BenchContext.lockName(tag, 0);
            this.waiterThread = Executors.newSingleThreadExecutor(runnable -> {
                Thread thread = new Thread(runnable, "bench-waiter-" + library.name());
                thread.setDaemon(true);
                return thread;
            });
            this.holderClient = library.connect(context.target());
            this.waiterClient = otherClient ? library.connect(context.target()) : null;
            BenchLock holder = holderClient.lock(name);
            BenchLock waiter = (otherClient ? waiterClient : holderClient).lock(name);
            this.sampler = new Sampler(holder, waiter, waiterThread);
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

        @Override
        public void close() {
            try {
                if (waiterClient != null) {
                    waiterClient.close();
                }
                holderClient.close();
            } finally {
                waiterThread.shutdownNow();
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
        private final BenchLock waiter;
        private final ExecutorService waiterThread;

        Sampler(BenchLock holder, BenchLock waiter, ExecutorService waiterThread) {
            this.holder = holder;
            this.waiter = waiter;
            this.waiterThread = waiterThread;
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
            CountDownLatch started = new CountDownLatch(1);
            Future<Long> returned = waiterThread.submit(() -> {
                started.countDown();
                if (!waiter.tryLock(WAIT_MILLIS, UncontendedScenario.LEASE_MILLIS)) {
                    throw new IllegalStateException("The waiter was not woken within " + WAIT_MILLIS + " ms");
                }
                long acquiredAt = System.nanoTime();
                waiter.unlock();
                return acquiredAt;
            });
            if (!started.await(SAMPLE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("The waiter thread did not start within " + SAMPLE_TIMEOUT);
            }
            Thread.sleep(PARK_MILLIS);
            long unlockAt = System.nanoTime();
            holder.unlock();
            return returned.get(SAMPLE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS) - unlockAt;
        }
    }
}
