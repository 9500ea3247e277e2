package dev.padlock.bench;

import dev.padlock.spi.Script;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The most hand-offs per second that one confirmed round trip per hand-off allows on this
 * server and machine: {@code lock_handoff}, Padlock's own hand-off script, sent one after the other
 * on one connection, each as soon as the reply to the one before arrived (on the I/O thread, as
 * the engine sends its next), passing one lock between two owners. Scenario 3b, threads of one
 * client taking turns on one lock, cannot beat it: each turn waits for one such reply.
 */
final class HandOffCeiling {
    private static final String[] OWNERS = {"ceiling:1", "ceiling:2"};
    private static final String LEASE = "30000";
    /** The script from the lock-lua jar, as the engine sends it. */
    private static final Script HANDOFF = Script.load(HandOffCeiling.class, "/dev/padlock/lua/lock_handoff.lua");

    private HandOffCeiling() {
    }

    /** Hand-offs per second on one server ({@code target} single), after {@code warmUp}. */
    static double perSecond(RedisTarget target, Duration warmUp, Duration measured) throws InterruptedException {
        RedisClient client = RedisClient.create(target.uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisAsyncCommands<String, String> redis = connection.async();
            String name = "ceiling:" + UUID.randomUUID();
            String[] keys = {name, "padlock_since:{" + name + "}"};
            connection.sync().hset(name, OWNERS[0], "1");
            connection.sync().pexpire(name, 30_000);
            String sha = connection.sync().scriptLoad(HANDOFF.body());
            // every hand-off so far, across warm-up and measurement: its parity says who holds now
            AtomicLong handOffs = new AtomicLong();
            run(redis, sha, keys, handOffs, warmUp);
            double perSecond = run(redis, sha, keys, handOffs, measured);
            connection.sync().del(keys);
            return perSecond;
        } finally {
            client.shutdown();
        }
    }

    /** Hand-offs one after the other for {@code duration}; per second. */
    private static double run(RedisAsyncCommands<String, String> redis, String sha, String[] keys,
            AtomicLong handOffs, Duration duration) throws InterruptedException {
        long before = handOffs.get();
        CompletableFuture<Void> done = new CompletableFuture<>();
        long start = System.nanoTime();
        long end = start + duration.toNanos();
        next(redis, sha, keys, handOffs, end, done);
        try {
            done.get(duration.toMillis() + 30_000, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("the hand-off ceiling's calibration failed: " + e, e);
        }
        return (handOffs.get() - before) / ((System.nanoTime() - start) / 1e9);
    }

    /** The next hand-off, from whoever holds: {@code OWNERS[0]} after an even number of them. */
    private static void next(RedisAsyncCommands<String, String> redis, String sha, String[] keys, AtomicLong count,
            long end, CompletableFuture<Void> done) {
        int from = (int) (count.get() & 1);
        redis.<Long>evalsha(sha, ScriptOutputType.INTEGER, keys, LEASE, OWNERS[from], OWNERS[1 - from], "0")
                .whenComplete((reply, failure) -> {
                    if (failure != null) {
                        done.completeExceptionally(failure);
                    } else if (reply == null || reply != 2L) {
                        done.completeExceptionally(new IllegalStateException("lock_handoff answered " + reply));
                    } else if (count.incrementAndGet() > 0 && System.nanoTime() - end >= 0) {
                        done.complete(null);
                    } else {
                        next(redis, sha, keys, count, end, done);
                    }
                });
    }
}
