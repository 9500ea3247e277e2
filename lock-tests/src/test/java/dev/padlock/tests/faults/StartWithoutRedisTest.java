package dev.padlock.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RFencedLock;
import dev.padlock.RLock;
import dev.padlock.RReadWriteLock;
import dev.padlock.RedisUnavailableException;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisServerProcess;
import dev.padlock.testing.junit.RedisTest;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A client may start while Redis is down ({@code startWithoutRedis}): its calls fail at once with a
 * clear error until it connects in the background, and then work as any client's, under the id it
 * had from the start. Without the option, creating a client with Redis down fails.
 */
@RedisTest(controllable = true)
@Tag("faults")
class StartWithoutRedisTest {

    @Test
    void aClientStartedWhileRedisIsDownFailsFastThenWorksOnceRedisIsBack(RedisServerProcess redis) throws Exception {
        LockConfig config = LockConfig.builder().redisUri(redis.uri()).commandTimeout(Duration.ofMillis(500))
                .startWithoutRedis(true).build();
        redis.stop();
        assertThatThrownBy(() -> LockClient.create(LockConfig.builder().redisUri(redis.uri())
                .commandTimeout(Duration.ofMillis(500)).build())).isInstanceOf(RedisUnavailableException.class);

        try (LockClient client = LockClient.create(config)) {
            String name = "deferred:" + UUID.randomUUID();
            RLock lock = client.getLock(name);
            assertThat(lock.getName()).isEqualTo(name);
            long began = System.nanoTime();
            assertThatThrownBy(lock::lock).isInstanceOf(RedisUnavailableException.class)
                    .hasMessageContaining("not connected yet").hasMessageContaining(redis.uri());
            assertThatThrownBy(lock::tryLock).isInstanceOf(RedisUnavailableException.class);
            CompletableFuture<Boolean> attempt = lock.tryLockAsync(1, -1, TimeUnit.SECONDS, 1);
            assertThatThrownBy(attempt::get).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(RedisUnavailableException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - began)).as("nothing waits for the connection")
                    .isLessThan(Duration.ofSeconds(5));
            assertThatThrownBy(lock::newCondition).isInstanceOf(UnsupportedOperationException.class);
            assertThatThrownBy(() -> client.getLock("")).isInstanceOf(IllegalArgumentException.class);

            redis.restart();
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).pollInSameThread().ignoreExceptions()
                    .until(lock::tryLock);
            try (RedisAdmin admin = RedisAdmin.connect(redis.uri())) {
                assertThat(admin.commands().hkeys(name)).singleElement().asString().startsWith(client.getId() + ":");
            }
            lock.unlock();

            RReadWriteLock readWrite = client.getReadWriteLock("deferred-rw:" + UUID.randomUUID());
            assertThat(readWrite.readLock().tryLock()).isTrue();
            readWrite.readLock().unlock();
            RFencedLock fenced = client.getFencedLock("deferred-fenced:" + UUID.randomUUID());
            assertThat(fenced.tryLockAndGetToken(0, 10, TimeUnit.SECONDS)).isNotNull();
            fenced.unlock();
            RLock multi = client.getMultiLock(client.getLock("m1:" + UUID.randomUUID()), client.getLock("m2:" + UUID.randomUUID()));
            assertThat(multi.tryLock()).isTrue();
            multi.unlock();
        }
    }
}
