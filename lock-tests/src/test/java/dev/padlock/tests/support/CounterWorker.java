package dev.padlock.tests.support;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RLock;
import dev.padlock.RReadWriteLock;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A worker JVM for {@code MultiProcessExclusionTest}: {@code threads} threads each do
 * {@code iterations} non-atomic increments (GET, then SET value + 1) of a counter key inside
 * {@code lock()}/{@code unlock()} of one Padlock lock.
 *
 * <p>Start protocol: after connecting, the worker {@code INCR}s {@code <readyKey>} and blocks in
 * {@code BLPOP <goKey>} (bounded) until the test pushes one element per worker, so every process
 * contends from the same moment. Exit codes: 0 done, 1 an error, 2 the go signal never came,
 * 3 the work did not finish in time. Everything is bounded in time; the worker never waits forever.
 *
 * <p>Arguments: {@code <topology> <lockName> <counterKey> <readyKey> <goKey> <threads> <iterations> <kind>},
 * where {@code <topology>} is a {@code redis://} or {@code redis-sentinel://} URI, or
 * {@code cluster:} followed by comma-separated seed URIs, and {@code <kind>} {@code lock} (the plain
 * lock), {@code fair} (the fair lock) or {@code rw} (the write lock of a read-write lock for the
 * increments, and before each a read under its read lock: two reads of the counter that must agree,
 * or the worker fails).
 */
public final class CounterWorker {

    public static final int EXIT_OK = 0;
    public static final int EXIT_ERROR = 1;
    public static final int EXIT_NO_GO = 2;
    public static final int EXIT_TIMEOUT = 3;
    /** Starts a {@code <topology>} argument that lists Cluster seeds. */
    public static final String CLUSTER_PREFIX = "cluster:";

    private static final Duration GO_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration WORK_TIMEOUT = Duration.ofSeconds(60);

    private CounterWorker() {
    }

    public static void main(String[] args) {
        int code;
        try {
            code = run(args);
        } catch (Throwable e) {
            e.printStackTrace();
            code = EXIT_ERROR;
        }
        System.out.flush();
        System.err.flush();
        // Exit explicitly: a non-daemon thread left by a library must not keep the JVM alive.
        Runtime.getRuntime().halt(code);
    }

    /** Reads the counter twice under the read lock: no writer may change it in between. */
    private static void readTwice(RLock readLock, RedisClusterCommands<String, String> commands, String counterKey,
            String who) {
        readLock.lock();
        try {
            String first = commands.get(counterKey);
            Thread.yield();
            String second = commands.get(counterKey);
            if (!first.equals(second)) {
                throw new IllegalStateException(who + ": the counter went from " + first + " to " + second
                        + " while it held the read lock");
            }
        } finally {
            readLock.unlock();
        }
    }

    private static int run(String[] args) throws Exception {
        if (args.length != 8) {
            throw new IllegalArgumentException("usage: CounterWorker <topology> <lockName> <counterKey> "
                    + "<readyKey> <goKey> <threads> <iterations> <lock|fair|rw>; got " + args.length + " arguments");
        }
        String uri = args[0];
        String lockName = args[1];
        String counterKey = args[2];
        String readyKey = args[3];
        String goKey = args[4];
        int threads = Integer.parseInt(args[5]);
        int iterations = Integer.parseInt(args[6]);
        String kind = args[7];
        long pid = ProcessHandle.current().pid();

        boolean cluster = uri.startsWith(CLUSTER_PREFIX);
        List<RedisURI> seeds = new ArrayList<>();
        for (String each : (cluster ? uri.substring(CLUSTER_PREFIX.length()) : uri).split(",(?=redis)")) {
            RedisURI redisUri = RedisURI.create(each);
            redisUri.setTimeout(Duration.ofSeconds(GO_TIMEOUT.toSeconds() + 5));
            seeds.add(redisUri);
        }
        AbstractRedisClient redis = cluster ? RedisClusterClient.create(seeds) : RedisClient.create(seeds.get(0));
        LockConfig.Builder config = LockConfig.builder();
        if (cluster) {
            config.clusterUris(uri.substring(CLUSTER_PREFIX.length()).split(","));
        } else {
            config.redisUri(uri);
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (StatefulConnection<String, String> connection = cluster
                        ? ((RedisClusterClient) redis).connect() : ((RedisClient) redis).connect();
                LockClient padlock = LockClient.create(config.build())) {
            RedisClusterCommands<String, String> commands = connection instanceof StatefulRedisClusterConnection<String, String> c
                    ? c.sync() : ((StatefulRedisConnection<String, String>) connection).sync();
            RReadWriteLock readWrite = padlock.getReadWriteLock(lockName);
            RLock lock = switch (kind) {
                case "fair" -> padlock.getFairLock(lockName);
                case "rw" -> readWrite.writeLock();
                default -> padlock.getLock(lockName);
            };
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Void>> running = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String who = "pid " + pid + " thread " + t;
                running.add(pool.submit(() -> {
                    if (!go.await(GO_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                        throw new IllegalStateException(who + ": no go signal");
                    }
                    for (int i = 0; i < iterations; i++) {
                        if (kind.equals("rw")) {
                            readTwice(readWrite.readLock(), commands, counterKey, who);
                        }
                        lock.lock();
                        try {
                            long value = Long.parseLong(commands.get(counterKey));
                            commands.set(counterKey, String.valueOf(value + 1));
                        } finally {
                            lock.unlock();
                        }
                    }
                    return null;
                }));
            }

            commands.incr(readyKey);
            KeyValue<String, String> signal = commands.blpop(GO_TIMEOUT.toSeconds(), goKey);
            if (signal == null || !signal.hasValue()) {
                System.err.println("pid " + pid + ": no go signal on " + goKey + " within " + GO_TIMEOUT);
                return EXIT_NO_GO;
            }
            long began = System.nanoTime();
            go.countDown();
            long deadline = began + WORK_TIMEOUT.toNanos();
            for (Future<Void> thread : running) {
                try {
                    thread.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (java.util.concurrent.TimeoutException e) {
                    System.err.println("pid " + pid + ": work not done within " + WORK_TIMEOUT);
                    return EXIT_TIMEOUT;
                }
            }
            System.out.printf("pid %d: %d threads x %d iterations in %d ms%n", pid, threads, iterations,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began));
            return EXIT_OK;
        } finally {
            pool.shutdownNow();
            redis.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }
}
