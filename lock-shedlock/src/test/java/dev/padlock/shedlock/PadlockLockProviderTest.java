package dev.padlock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.LockClient;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/** ShedLock's own suites (lock, extend, lockAtLeastFor, fuzz), unchanged, on one Redis server. */
@RedisTest
class PadlockLockProviderTest extends AbstractExtensibleLockProviderIntegrationTest {
    private static LockClient client;
    private static PadlockLockProvider provider;
    private static RedisAdmin admin;

    @BeforeAll
    static void open(RedisEndpoint redis, RedisAdmin redisAdmin) {
        client = LockClient.connect(redis.uri());
        provider = new PadlockLockProvider(client);
        admin = redisAdmin;
    }

    @AfterAll
    static void close() {
        if (client != null) {
            client.close();
        }
    }

    /** The suites reuse job names and leave some held (lockAtLeastFor): each test starts clean. */
    @AfterEach
    void deleteJobKeys() {
        admin.commands().del(ShedLockKeys.of("shedlock:", LOCK_NAME1));
    }

    @Override
    protected ExtensibleLockProvider getLockProvider() {
        return provider;
    }

    @Override
    protected void assertUnlocked(String lockName) {
        assertThat(admin.commands().exists("shedlock:" + lockName)).as("key of " + lockName).isZero();
    }

    @Override
    protected void assertLocked(String lockName) {
        assertThat(admin.commands().exists("shedlock:" + lockName)).as("key of " + lockName).isOne();
    }
}
