package dev.padlock.tests.faults;

import dev.padlock.LockConfig;
import dev.padlock.tests.support.Clients;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisSentinelSetup;
import dev.padlock.testing.RedisServerProcess;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A Sentinel failover (the master killed) while a lock is held and threads wait on it. */
@Tag("faults")
class SentinelFailoverTest {
    private RedisSentinelSetup sentinel;

    @BeforeEach
    void start() {
        sentinel = RedisSentinelSetup.start();
    }

    @AfterEach
    void stop() {
        sentinel.close();
    }

    @Test
    void anAcknowledgedLockSurvivesTheFailoverAndWaitersResume() throws Exception {
        String name = Clients.uniqueName("sentinel-failover");
        LockConfig.Builder topology = LockConfig.builder().redisUri(sentinel.sentinelUri());
        try (FailoverScenario scenario = new FailoverScenario(topology,
                LockConfig.builder().redisUri(sentinel.sentinelUri()), name)) {
            long start = System.nanoTime();
            sentinel.master().kill();
            RedisServerProcess promoted = sentinel.awaitFailoverAfterKill(Duration.ofSeconds(30));
            System.out.printf("sentinel failover took %d ms%n", (System.nanoTime() - start) / 1_000_000);
            try (RedisAdmin admin = sentinel.admin(promoted)) {
                scenario.checkRecovery(() -> admin.commands().hexists(name, scenario.field),
                        Clients.uniqueName("sentinel-after"));
            }
        }
    }
}
