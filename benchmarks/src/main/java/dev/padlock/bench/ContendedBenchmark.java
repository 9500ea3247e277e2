package dev.padlock.bench;

import java.util.concurrent.TimeUnit;
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
 * JMH: {@link Threads 4} threads of one client take turns on one lock, {@code lock(30 s)} +
 * {@code unlock()} with nothing in between: the JMH twin of scenario 3 of {@link Bench} (and of
 * 7i for the fair lock). {@code -t N} sets the number of threads. The throughput is the
 * acquisitions per millisecond of all threads together. The kinds are those over one lock name;
 * the read lock is shared, so its threads do not wait for each other. Each trial starts its own
 * redis-server ({@link JmhRedis}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Threads(4)
public class ContendedBenchmark {

    @Param({"Padlock", "Redisson"})
    public String library;

    @Param({"plain", "fair", "read", "write", "fenced", "spin"})
    public String kind;

    private JmhRedis redis;
    private BenchLock lock;

    @Setup(Level.Trial)
    public void start() {
        LockKind parsed = JmhRedis.kind(kind);
        if (parsed.locks() != 1) {
            throw new IllegalArgumentException("ContendedBenchmark takes the kinds over one lock name, not " + kind);
        }
        redis = JmhRedis.start(library);
        lock = redis.lock(parsed, "contended");
    }

    @TearDown(Level.Trial)
    public void stop() {
        redis.close();
    }

    @Benchmark
    public void lockAndUnlock() {
        lock.lock(UncontendedScenario.LEASE_MILLIS);
        lock.unlock();
    }
}
