package dev.padlock.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * JMH: threads of one client doing different things to one lock at the same time, each group
 * measured per role.
 * <ul>
 *   <li>{@code readWrite}: 3 threads take the read lock and 1 the write lock of one read-write
 *       lock, each {@code lock(30 s)} + {@code unlock()};</li>
 *   <li>{@code tryLock}: 3 threads {@code lock(30 s)} + {@code unlock()} a plain lock while 1
 *       thread tries it ({@code tryLock(0, 30 s)}, unlocking when it got it); the counters
 *       {@code acquired} and {@code missed} say how often the try succeeded.</li>
 * </ul>
 * {@code -tg 1,1} changes the split of threads in a group (in the order of the methods' names:
 * {@code read,write} and {@code lock,tryLock}); {@code -t N} runs more groups on the same lock.
 * The throughput is acquisitions per millisecond. Each trial starts its own redis-server
 * ({@link JmhRedis}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class GroupBenchmark {

    @Param({"Padlock", "Redisson"})
    public String library;

    private JmhRedis redis;
    private BenchLock readLock;
    private BenchLock writeLock;
    private BenchLock plainLock;

    @Setup(Level.Trial)
    public void start() {
        redis = JmhRedis.start(library);
        readLock = redis.lock(LockKind.READ, "group-rw");
        writeLock = redis.lock(LockKind.WRITE, "group-rw");
        plainLock = redis.lock(LockKind.LOCK, "group-try");
    }

    @TearDown(Level.Trial)
    public void stop() {
        redis.close();
    }

    @Benchmark
    @Group("readWrite")
    @GroupThreads(3)
    public void read() {
        readLock.lock(UncontendedScenario.LEASE_MILLIS);
        readLock.unlock();
    }

    @Benchmark
    @Group("readWrite")
    @GroupThreads(1)
    public void write() {
        writeLock.lock(UncontendedScenario.LEASE_MILLIS);
        writeLock.unlock();
    }

    @Benchmark
    @Group("tryLock")
    @GroupThreads(3)
    public void lock() {
        plainLock.lock(UncontendedScenario.LEASE_MILLIS);
        plainLock.unlock();
    }

    @Benchmark
    @Group("tryLock")
    @GroupThreads(1)
    public boolean tryLock(TryOutcomes outcomes) throws InterruptedException {
        boolean acquired = plainLock.tryLock(0, UncontendedScenario.LEASE_MILLIS);
        if (acquired) {
            plainLock.unlock();
            outcomes.acquired++;
        } else {
            outcomes.missed++;
        }
        return acquired;
    }

    /** How the trying thread fared in one iteration; JMH reports both fields. Owned by that thread. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class TryOutcomes {
        public long acquired;
        public long missed;

        @Setup(Level.Iteration)
        public void reset() {
            acquired = 0;
            missed = 0;
        }
    }
}
