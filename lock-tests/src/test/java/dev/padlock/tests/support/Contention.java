package dev.padlock.tests.support;

import dev.padlock.RLock;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/** What contention tests share: running tasks together, and a counter only exclusion keeps exact. */
public final class Contention {
    private Contention() {
    }

    /**
     * Runs {@code body} in {@code tasks} tasks on {@code pool} (each gets its index), waits for all
     * of them, bounded, rethrowing the first failure, and shuts the pool down.
     */
    public static void run(ExecutorService pool, int tasks, IntConsumer body) throws Exception {
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < tasks; t++) {
                int task = t;
                done.add(pool.submit(() -> body.accept(task)));
            }
            for (Future<?> future : done) {
                future.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** A deliberately non-atomic read, add one, write of a Redis counter: lost updates show overlap. */
    public static void incrementNonAtomically(RedisCommands<String, String> redis, String counter) {
        String value = redis.get(counter);
        redis.set(counter, Integer.toString(value == null ? 1 : Integer.parseInt(value) + 1));
    }

    /** {@code tryLock(waitMillis)} for a lambda: an interrupt becomes an unchecked failure. */
    public static boolean tryLock(RLock lock, long waitMillis) {
        try {
            return lock.tryLock(waitMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code Thread.sleep} for a lambda: an interrupt becomes an unchecked failure. */
    public static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
