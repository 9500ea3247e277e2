package dev.padlock.sim.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.RedisProvisioner;
import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestReporter;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Holds {@link ModelRedis} to a real redis-server (from the lock-testing fixture: the PATH's, else
 * the embedded 6.2): random sequences of plain commands and lock-lua script calls, seeded, run on
 * both side by side, with the same replies, key space and published messages required after every
 * step (see {@link DifferentialRun} and {@link Comparison}). The model takes the server's major
 * version. {@code -Dpadlock.sim.diff.seeds=1,2,3} and {@code -Dpadlock.sim.diff.steps=N} change
 * the sequences.
 */
class ModelDifferentialTest {

    private static final int DEFAULT_STEPS = 2000;

    private static RedisEndpoint endpoint;
    private static RespClient real;
    private static RedisClient lettuce;
    private static int majorVersion;
    private static final Map<String, StatefulRedisPubSubConnection<String, String>> SUBSCRIBERS = new HashMap<>();
    private static final Map<String, Queue<String>> RECEIVED = new HashMap<>();

    @BeforeAll
    static void startRedis() {
        endpoint = RedisProvisioner.provisionControllable(List.of());
        real = new RespClient(endpoint.uri());
        Matcher version = Pattern.compile("redis_version:(\\d+)\\.").matcher((String) real.call("INFO", "server"));
        assertThat(version.find()).as("INFO names the version").isTrue();
        majorVersion = Math.min(7, Integer.parseInt(version.group(1)));
        lettuce = RedisClient.create(endpoint.uri());
        for (String name : Workload.SUBSCRIBERS) {
            Queue<String> queue = new ConcurrentLinkedQueue<>();
            StatefulRedisPubSubConnection<String, String> connection = lettuce.connectPubSub();
            connection.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String channel, String message) {
                    queue.add(channel + " " + message);
                }
            });
            SUBSCRIBERS.put(name, connection);
            RECEIVED.put(name, queue);
        }
    }

    @AfterAll
    static void stopRedis() {
        SUBSCRIBERS.values().forEach(StatefulRedisPubSubConnection::close);
        SUBSCRIBERS.clear();
        if (lettuce != null) {
            lettuce.shutdown();
        }
        if (real != null) {
            real.close();
        }
        if (endpoint != null) {
            endpoint.close();
        }
    }

    static List<Long> seeds() {
        String seeds = System.getProperty("padlock.sim.diff.seeds", "1,2,3,4");
        return java.util.Arrays.stream(seeds.split(",")).map(String::trim).map(Long::valueOf).toList();
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    @Timeout(120)
    void modelAgreesWithRedis(long seed, TestReporter reporter) {
        int steps = Integer.getInteger("padlock.sim.diff.steps", DEFAULT_STEPS);
        DifferentialRun.Summary summary = new DifferentialRun(real, SUBSCRIBERS, RECEIVED, majorVersion, seed).run(steps);
        reporter.publishEntry("redis " + majorVersion + " " + summary);
        System.out.println("[differential] redis " + majorVersion + " " + summary);
    }
}
