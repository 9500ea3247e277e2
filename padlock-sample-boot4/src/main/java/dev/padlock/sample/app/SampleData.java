package dev.padlock.sample.app;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.List;

/**
 * The application's own data on Redis, through a connection of its own: Padlock's locks guard it,
 * they do not store it. Times come from Redis ({@code TIME}), one clock for every instance.
 * Thread-safe (Lettuce multiplexes one connection).
 */
public final class SampleData implements AutoCloseable {
    /** The counter {@link Counter} updates. */
    public static final String COUNTER = "sample:counter";
    /** One entry a run of {@link Report}: {@code <instance> <startMicros> <endMicros>}. */
    public static final String REPORT_RUNS = "sample:report:runs";

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> redis;

    SampleData(String uri) {
        client = RedisClient.create(uri);
        connection = client.connect();
        connection.setTimeout(Duration.ofSeconds(2));
        redis = connection.sync();
    }

    long get(String key) {
        String value = redis.get(key);
        return value == null ? 0 : Long.parseLong(value);
    }

    void set(String key, long value) {
        redis.set(key, Long.toString(value));
    }

    /** Redis's clock, in microseconds. */
    long nowMicros() {
        List<String> time = redis.time();
        return Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
    }

    void append(String key, String value) {
        redis.rpush(key, value);
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
