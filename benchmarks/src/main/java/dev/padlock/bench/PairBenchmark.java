package dev.padlock.bench;

import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * JMH: one uncontended {@code lock(30 s)} + {@code unlock()} pair per operation, one thread, for
 * each library and the floor ({@link FloorLibrary}: what two bare script calls through Lettuce cost). Run by {@link JmhAllocation} with the GC profiler for the bytes allocated per
 * pair, with {@code target} ({@link RedisTarget#argument()}) set to the bench's own Redis (one
 * server or a Cluster). Without {@code target}, as in a run of the whole JMH suite, each trial
 * starts a redis-server of its own ({@link JmhRedis}), as {@link UncontendedBenchmark} does.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class PairBenchmark {

    @Param({"Padlock", "Redisson", FloorLibrary.NAME})
    public String library;

    @Param({""})
    public String target;

    /** The client when {@code target} is set; null otherwise. */
    private LockLibrary.Client client;
    /** The server and client of its own when {@code target} is empty; null otherwise. */
    private JmhRedis redis;
    private BenchLock lock;

    @Setup(Level.Trial)
    public void connect() {
        if (target.isEmpty()) {
            redis = JmhRedis.start(library);
            lock = redis.lock(LockKind.LOCK, "pair");
            return;
        }
        client = LockLibrary.byName(library).connect(RedisTarget.parse(target));
        lock = client.lock("bench:jmh-" + library.toLowerCase() + "-" + UUID.randomUUID());
    }

    @TearDown(Level.Trial)
    public void close() {
        if (redis != null) {
            redis.close();
        } else {
            client.close();
        }
    }

    @Benchmark
    public void lockAndUnlock() {
        lock.lock(UncontendedScenario.LEASE_MILLIS);
        lock.unlock();
    }
}
