package dev.padlock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.testing.RedisCluster;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.time.Duration;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * ShedLock's own suites, unchanged, on a 3-master Redis Cluster, with a prefix whose keys spread
 * over the masters.
 */
class PadlockLockProviderClusterTest extends AbstractExtensibleLockProviderIntegrationTest {
    private static final String PREFIX = "jobs:";
    private static RedisCluster cluster;
    private static LockClient client;
    private static PadlockLockProvider provider;
    private static RedisClusterClient dataClient;
    private static StatefulRedisClusterConnection<String, String> data;

    @BeforeAll
    static void start() {
        cluster = RedisCluster.start(3, 0);
        client = LockClient.create(LockConfig.builder().clusterUris(cluster.seedUris().toArray(String[]::new)).build());
        provider = new PadlockLockProvider(client, PREFIX);
        dataClient = RedisClusterClient.create(cluster.seedUris().stream().map(RedisURI::create).toList());
        data = dataClient.connect();
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (dataClient != null) {
            dataClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @AfterEach
    void deleteJobKeys() {
        for (String key : ShedLockKeys.of(PREFIX, LOCK_NAME1)) {
            data.sync().del(key);
        }
    }

    @Override
    protected ExtensibleLockProvider getLockProvider() {
        return provider;
    }

    @Override
    protected void assertUnlocked(String lockName) {
        assertThat(data.sync().exists(PREFIX + lockName)).as("key of " + lockName).isZero();
    }

    @Override
    protected void assertLocked(String lockName) {
        assertThat(data.sync().exists(PREFIX + lockName)).as("key of " + lockName).isOne();
    }
}
