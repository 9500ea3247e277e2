package dev.padlock.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.padlock.testing.CommandStats;
import dev.padlock.testing.RedisAdmin;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The floor on a Redis the test starts: its scripts keep Redisson's lock format (hash, owner
 * field, lease, unlock message on Redisson's channel), and in each of its scenarios an uncontended
 * pair is exactly 8 Redis calls in 2 round trips.
 */
class FloorLibraryTest {

    private static BenchServers servers;

    private String name;

    @BeforeAll
    static void startRedis() {
        servers = BenchServers.start(Topology.SINGLE, Optional.empty());
    }

    @AfterAll
    static void stopRedis() {
        servers.close();
    }

    @AfterEach
    void nothingIsLeftBehind() {
        if (name != null) {
            assertThat(redis().keys("*" + name + "*")).isEmpty();
        }
    }

    @Test
    void anUncontendedPairIsEightRedisCallsInTwoRoundTrips() throws Exception {
        BenchContext context = new BenchContext(servers, Duration.ofMillis(300), Duration.ofMillis(100),
                Duration.ofMillis(300));
        List<Scenario> scenarios = Bench.scenarios().stream().filter(Scenario::withFloor).collect(Collectors.toList());
        assertThat(scenarios).extracting(Scenario::id).containsExactly("1", "1b", "2", "7a");

        for (Scenario scenario : scenarios) {
            ScenarioResult result = scenario.run(LockLibrary.floor(), context);

            ServerCost cost = result.cost();
            long pairs = cost.acquisitions();
            assertThat(pairs).as(scenario.id()).isPositive();
            // acquire: EVALSHA, EXISTS, HINCRBY, PEXPIRE; release: EVALSHA, HINCRBY, DEL, PUBLISH
            assertThat(cost.commands()).as(scenario.id()).containsExactlyInAnyOrderEntriesOf(Map.of("evalsha",
                    2 * pairs, "exists", pairs, "hincrby", 2 * pairs, "pexpire", pairs, "del", pairs, "publish", pairs));
            assertThat(cost.callsPerAcquisition()).as(scenario.id()).isEqualTo(8.0);
            assertThat(result.roundTripsPerAcquisition()).as(scenario.id()).isCloseTo(2.0, within(0.05));
            assertThat(result.keysLeft()).as(scenario.id()).isZero();
        }
    }

    @Test
    void aHoldIsRedissonsHashAndTheLastReleasePublishesOnRedissonsChannel() throws Exception {
        name = "bench:floor-test:" + UUID.randomUUID();
        BlockingQueue<String> messages = new LinkedBlockingQueue<>();
        RedisClient subscriber = RedisClient.create(servers.target().uri());
        try (LockLibrary.Client client = LockLibrary.floor().connect(servers.target());
                StatefulRedisPubSubConnection<String, String> pubSub = subscriber.connectPubSub()) {
            pubSub.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String channel, String message) {
                    messages.add(channel + " " + message);
                }
            });
            pubSub.sync().subscribe("redisson_lock__channel:{" + name + "}");
            BenchLock lock = client.lock(name);

            lock.lock(10_000);
            lock.lock(20_000);

            Map<String, String> hash = redis().hgetall(name);
            assertThat(hash).hasSize(1).containsValue("2");
            assertThat(hash.keySet().iterator().next()).matches("[0-9a-f-]{36}:" + Thread.currentThread().getId());
            assertThat(redis().pttl(name)).isBetween(10_001L, 20_000L);

            CommandStats before = admin().commandStats();
            lock.unlock();
            assertThat(CommandStats.delta(before, admin().commandStats()).calls("publish")).isZero();
            assertThat(redis().hgetall(name)).containsValue("1");
            assertThat(redis().pttl(name)).isBetween(10_001L, 20_000L);

            lock.unlock();
            assertThat(redis().exists(name)).isZero();
            assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("redisson_lock__channel:{" + name + "} 0");
        } finally {
            subscriber.shutdown();
        }
    }

    @Test
    void anotherOwnerNeitherTakesNorReleasesTheLock() throws Exception {
        name = "bench:floor-test:" + UUID.randomUUID();
        try (LockLibrary.Client holder = LockLibrary.floor().connect(servers.target());
                LockLibrary.Client other = LockLibrary.floor().connect(servers.target())) {
            BenchLock mine = holder.lock(name);
            BenchLock theirs = other.lock(name);

            // the field HINCRBY made at -1 is removed again, and with it the empty hash
            assertThatThrownBy(theirs::unlock).isInstanceOf(IllegalMonitorStateException.class);
            assertThat(redis().exists(name)).isZero();

            assertThat(mine.tryLock()).isTrue();
            assertThat(redis().pttl(name)).isGreaterThan(29_000L);
            assertThat(theirs.tryLock()).isFalse();
            assertThat(theirs.tryLock(20, 30_000)).isFalse();
            assertThatThrownBy(theirs::unlock).isInstanceOf(IllegalMonitorStateException.class);
            assertThat(redis().hgetall(name)).hasSize(1).containsValue("1");

            mine.unlock();
            assertThat(theirs.tryLock(0, 30_000)).isTrue();
            theirs.unlock();
        }
    }

    @Test
    void aFlushedScriptCacheIsRunByEval() throws Exception {
        name = "bench:floor-test:" + UUID.randomUUID();
        try (LockLibrary.Client client = LockLibrary.floor().connect(servers.target())) {
            BenchLock lock = client.lock(name);
            lock.lockWithWatchdog();

            admin().scriptFlush();
            lock.unlock();
            assertThat(redis().exists(name)).isZero();

            admin().scriptFlush();
            lock.lock(30_000);
            lock.unlock();
        }
    }

    @Test
    void theFloorHasOnlyThePlainLock() {
        try (LockLibrary.Client client = LockLibrary.floor().connect(servers.target())) {
            assertThatThrownBy(() -> client.lock(LockKind.FAIR, List.of("bench:floor-test:fair")))
                    .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("FAIR");
        }
    }

    private static RedisAdmin admin() {
        return servers.admins().get(0);
    }

    private static RedisCommands<String, String> redis() {
        return admin().commands();
    }
}
