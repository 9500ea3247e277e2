package dev.padlock.tests.topology;

import dev.padlock.LockConfig;
import dev.padlock.tests.support.Clients;
import dev.padlock.testing.RedisSentinelSetup;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The core lock checks through Sentinel: a master, a replica and three Sentinels. */
class SentinelLocksTest extends TopologyLockSuite {
    private static RedisSentinelSetup sentinel;
    private static RedisClient dataClient;
    private static StatefulRedisConnection<String, String> data;

    @BeforeAll
    static void start() {
        sentinel = RedisSentinelSetup.start();
        dataClient = RedisClient.create(sentinel.sentinelUri());
        data = dataClient.connect();
    }

    @AfterAll
    static void stop() {
        if (dataClient != null) {
            dataClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        if (sentinel != null) {
            sentinel.close();
        }
    }

    @Override
    LockConfig.Builder topology() {
        return LockConfig.builder().redisUri(sentinel.sentinelUri());
    }

    @Override
    String workerTopology() {
        return sentinel.sentinelUri();
    }

    @Override
    RedisClusterCommands<String, String> data() {
        return data.sync();
    }

    @Override
    List<String> names(String prefix, int count) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            names.add(Clients.uniqueName("sentinel-" + prefix));
        }
        return names;
    }
}
