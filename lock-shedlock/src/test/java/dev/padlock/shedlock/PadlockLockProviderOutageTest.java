package dev.padlock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.testing.RedisServerProcess;
import dev.padlock.testing.junit.RedisTest;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.Test;

/**
 * A scheduled job through a Redis outage: each run is skipped (the provider answers empty) rather
 * than failing with an exception that the scheduler logs as an ERROR with its stack, run after run;
 * the job runs again once Redis is back.
 */
@RedisTest(controllable = true)
class PadlockLockProviderOutageTest {

    @Test
    void aJobDuringARedisOutageIsSkippedNotAnErrorEachRun(RedisServerProcess redis) {
        LockClient client = LockClient.create(LockConfig.builder().redisUri(redis.uri())
                .commandTimeout(Duration.ofMillis(300)).build());
        try {
            PadlockLockProvider provider = new PadlockLockProvider(client);
            String job = "report-" + UUID.randomUUID();
            provider.lock(config(job)).orElseThrow().unlock();

            redis.stop();
            for (int run = 0; run < 3; run++) {
                assertThat(provider.lock(config(job))).as("run %d during the outage", run).isEmpty();
            }

            redis.restart();
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> {
                Optional<SimpleLock> lock = provider.lock(config(job));
                lock.ifPresent(SimpleLock::unlock);
                return lock.isPresent();
            });
        } finally {
            client.close();
        }
    }

    private static LockConfiguration config(String name) {
        return new LockConfiguration(ClockProvider.now(), name, Duration.ofSeconds(30), Duration.ZERO);
    }
}
