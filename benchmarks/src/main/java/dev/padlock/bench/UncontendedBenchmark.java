package dev.padlock.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * JMH: one {@code lock(30 s)} + {@code unlock()} pair per operation on a lock nobody else wants,
 * for every kind and both libraries: the JMH twin of scenarios 1 and 7a-7h of {@link Bench}.
 * Every thread has a lock of its own, so {@code -t N} keeps it uncontended: N threads of one
 * client, a lock each (scenario 5). Each trial starts its own redis-server ({@link JmhRedis}). The defaults (1 fork, 3 warm-ups and
 * 5 iterations of 2 s, one thread) are a short run; the usual options override them, e.g.
 * {@code -f 3 -wi 5 -i 10 -bm avgt -p kind=fair,spin -prof gc}.
 */
@State(Scope.Benchmark)
@BenchmarkMode({Mode.AverageTime, Mode.Throughput})
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Threads(1)
public class UncontendedBenchmark {

    @Param({"Padlock", "Redisson"})
    public String library;

    @Param({"plain", "fair", "read", "write", "fenced", "spin", "multi", "red"})
    public String kind;

    private LockKind lockKind;
    private JmhRedis redis;
    /** Numbers the threads' locks; taken by each thread's {@link OwnLock} setup. */
    private final AtomicInteger locks = new AtomicInteger();

    @Setup(Level.Trial)
    public void start() {
        lockKind = JmhRedis.kind(kind);
        redis = JmhRedis.start(library);
    }

    @TearDown(Level.Trial)
    public void stop() {
        redis.close();
    }

    @Benchmark
    public void lockAndUnlock(OwnLock own) {
        own.lock.lock(UncontendedScenario.LEASE_MILLIS);
        own.lock.unlock();
    }

    /** The lock of one benchmark thread, named for it alone. Owned by that thread. */
    @State(Scope.Thread)
    public static class OwnLock {
        BenchLock lock;

        @Setup(Level.Trial)
        public void make(UncontendedBenchmark bench) {
            lock = bench.redis.lock(bench.lockKind, "uncontended-" + bench.locks.getAndIncrement());
        }
    }
}
