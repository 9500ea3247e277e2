package dev.padlock.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class RedisSentinelSetupTest {

    @BeforeAll
    static void needsABinary() {
        assumeTrue(RedisBinary.onPath().isPresent() || RedisBinary.embedded().isPresent(),
                "no redis-server binary: none on the PATH and none in the embedded-redis jar");
    }

    @Test
    void lettuceFollowsTheSentinelUriAcrossAFailover() throws Exception {
        try (RedisSentinelSetup setup = RedisSentinelSetup.start()) {
            RedisServerProcess oldMaster = setup.master();
            RedisServerProcess oldReplica = setup.replica();
            assertEquals(3, setup.sentinels().size());
            for (RedisServerProcess sentinel : setup.sentinels()) {
                String config = Files.readString(sentinel.configFile().orElseThrow());
                assertTrue(config.contains("sentinel myid"), "the Sentinel rewrote its own config file");
            }

            String uri = setup.sentinelUri();
            assertEquals("redis-sentinel://" + setup.sentinels().stream()
                    .map(sentinel -> "127.0.0.1:" + sentinel.port()).collect(Collectors.joining(","))
                    + "#" + setup.masterName(), uri);
            RedisURI parsed = RedisURI.create(uri);
            assertEquals(3, parsed.getSentinels().size());
            assertEquals(setup.masterName(), parsed.getSentinelMasterId());

            RedisClient client = RedisClient.create(uri);
            try {
                try (StatefulRedisConnection<String, String> connection = client.connect()) {
                    connection.sync().set("padlock:sentinel", "before");
                    assertEquals("before", connection.sync().get("padlock:sentinel"));
                }
                try (RedisAdmin admin = setup.admin(oldMaster)) {
                    assertEquals("before", admin.commands().get("padlock:sentinel"), "written to the master");
                }

                long started = System.nanoTime();
                RedisServerProcess newMaster = setup.failover();
                System.out.println("Sentinel failover took "
                        + Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms");

                assertSame(oldReplica, newMaster);
                assertSame(newMaster, setup.master());
                assertSame(oldMaster, setup.replica());
                try (StatefulRedisConnection<String, String> connection = client.connect()) {
                    assertEquals("before", connection.sync().get("padlock:sentinel"), "replicated before");
                    connection.sync().set("padlock:sentinel", "after");
                    assertEquals("after", connection.sync().get("padlock:sentinel"));
                }
                try (RedisAdmin admin = setup.admin(newMaster)) {
                    assertEquals("master", admin.infoField("replication", "role"));
                    assertEquals("after", admin.commands().get("padlock:sentinel"), "written to the new master");
                }
            } finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }

    @Test
    void killedMasterIsReplacedByTheReplica() {
        try (RedisSentinelSetup setup = RedisSentinelSetup.start()) {
            RedisServerProcess oldMaster = setup.master();
            RedisServerProcess oldReplica = setup.replica();
            oldMaster.kill();

            long started = System.nanoTime();
            RedisServerProcess newMaster = setup.awaitFailoverAfterKill(Duration.ofSeconds(20));
            System.out.println("Sentinel failover after kill took "
                    + Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms");

            assertSame(oldReplica, newMaster);
            assertNotEquals(oldMaster.port(), setup.master().port());
            RedisClient client = RedisClient.create(setup.sentinelUri());
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                connection.sync().set("padlock:sentinel:kill", "v");
                assertEquals("v", connection.sync().get("padlock:sentinel:kill"));
                assertEquals(List.of("padlock:sentinel:kill"), connection.sync().keys("padlock:sentinel:kill"));
            } finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }
}
