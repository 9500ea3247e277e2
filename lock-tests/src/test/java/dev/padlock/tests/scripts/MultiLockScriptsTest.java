package dev.padlock.tests.scripts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.internal.script.LuaScript;
import dev.padlock.spi.LockKeys;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Redissons;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/**
 * {@code multi_acquire} and {@code multi_release} run on their own with {@code EVAL} against a real
 * Redis: all locks or none, the holds and leases they leave, what they publish, and that Redisson's
 * {@code RLock} and they exclude each other.
 */
@RedisTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MultiLockScriptsTest {
    private static final String OWNER = "client-a:1";
    private static final String OTHER = "client-b:7";
    private static final long LONG_LEASE = 60_000;
    private static final long SHORT_LEASE = 5_000;

    private RedisAdmin admin;
    private RedisEndpoint redis;
    private RedisClient subscriberClient;

    @BeforeAll
    void connect(RedisEndpoint redis, RedisAdmin admin) {
        this.admin = admin;
        this.redis = redis;
        this.subscriberClient = RedisClient.create(redis.uri());
    }

    @AfterAll
    void disconnect() {
        subscriberClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }

    // ---- multi_acquire

    @Test
    void freeLocksAreAllTakenWithHoldCountOneAndTheLease() {
        List<String> keys = keys(3);

        assertThat(claim(keys, LONG_LEASE, OWNER)).isNull();

        for (String key : keys) {
            assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of(OWNER, "1"));
            assertThat(admin.commands().pttl(key)).isBetween(LONG_LEASE - 10_000, LONG_LEASE);
        }
    }

    @Test
    void oneLockHeldByAnotherOwnerGivesItsIndexAndPttlAndNothingIsWritten() {
        List<String> keys = keys(3);
        holdWith(keys.get(1), OTHER, 2, SHORT_LEASE);

        List<Object> reply = claim(keys, LONG_LEASE, OWNER);

        assertThat(reply).hasSize(2);
        assertThat(reply.get(0)).isEqualTo(2L);
        assertThat((Long) reply.get(1)).isBetween(1L, SHORT_LEASE);
        assertThat(admin.commands().exists(keys.get(0), keys.get(2))).as("the free locks stay free").isZero();
        assertThat(admin.commands().hgetall(keys.get(1))).isEqualTo(Map.of(OTHER, "2"));
        assertThat(admin.commands().pttl(keys.get(1))).as("its lease untouched").isBetween(1L, SHORT_LEASE);
    }

    @Test
    void theLastLockHeldWithoutExpiryGivesMinusOneAndNothingIsWritten() {
        List<String> keys = keys(2);
        admin.commands().hset(keys.get(1), OTHER, "1");

        assertThat(claim(keys, LONG_LEASE, OWNER)).containsExactly(2L, -1L);
        assertThat(admin.commands().exists(keys.get(0))).isZero();
    }

    @Test
    void aLockARedissonClientHoldsIsNotTakenAndNothingIsWritten() {
        List<String> keys = keys(3);
        RedissonClient redisson = Redissons.open(redis.uri());
        try {
            RLock theirs = redisson.getLock(keys.get(2));
            theirs.lock(60, TimeUnit.SECONDS);

            List<Object> reply = claim(keys, LONG_LEASE, OWNER);

            assertThat(reply.get(0)).isEqualTo(3L);
            assertThat(admin.commands().exists(keys.get(0), keys.get(1))).isZero();
            assertThat(theirs.isHeldByCurrentThread()).isTrue();
            theirs.unlock();
        } finally {
            Redissons.close(redisson);
        }
    }

    @Test
    void aClaimMakesALeftOverFieldOfTheOwnerOneHoldAndIsSafeToSendAgain() {
        List<String> keys = keys(2);
        holdWith(keys.get(0), OWNER, 3, SHORT_LEASE);

        assertThat(claim(keys, LONG_LEASE, OWNER)).isNull();
        assertThat(claim(keys, LONG_LEASE, OWNER)).isNull();

        for (String key : keys) {
            assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of(OWNER, "1"));
            assertThat(admin.commands().pttl(key)).isGreaterThan(SHORT_LEASE);
        }
    }

    @Test
    void reentriesCountUpAndNeverShortenALongerLease() {
        List<String> keys = keys(2);
        holdWith(keys.get(0), OWNER, 1, SHORT_LEASE);
        holdWith(keys.get(1), OWNER, 2, LONG_LEASE);
        admin.commands().hset(LockKeys.since(keys.get(0)), OWNER, "1700000000000");

        assertThat(acquire(keys, 30_000, OWNER, "0")).isNull();

        assertThat(admin.commands().hgetall(keys.get(0))).isEqualTo(Map.of(OWNER, "2"));
        assertThat(admin.commands().pttl(keys.get(0))).as("raised to the new lease").isGreaterThan(SHORT_LEASE);
        assertThat(admin.commands().pttl(LockKeys.since(keys.get(0)))).as("the since re-armed with it")
                .isGreaterThan(SHORT_LEASE);
        assertThat(admin.commands().hgetall(keys.get(1))).isEqualTo(Map.of(OWNER, "3"));
        assertThat(admin.commands().pttl(keys.get(1))).as("a longer lease kept").isGreaterThan(30_000);
    }

    @Test
    void aReentryAndAFreeLockTogether() {
        List<String> keys = keys(2);
        holdWith(keys.get(0), OWNER, 1, LONG_LEASE);

        assertThat(acquire(keys, LONG_LEASE, OWNER, "0")).isNull();

        assertThat(admin.commands().hgetall(keys.get(0))).isEqualTo(Map.of(OWNER, "2"));
        assertThat(admin.commands().hgetall(keys.get(1))).isEqualTo(Map.of(OWNER, "1"));
    }

    @Test
    void acquiringPublishesNothing() {
        List<String> keys = keys(2);
        try (Subscriber subscriber = subscribe(keys.get(0))) {
            assertThat(claim(keys, LONG_LEASE, OWNER)).isNull();
            assertThat(subscriber.messagesSoFar()).isEmpty();
        }
    }

    // ---- multi_release

    @Test
    void theLastHoldsAreDeletedWithTheirSinceAndEachLockPublishesTheUnlockMessage() {
        List<String> keys = keys(2);
        for (String key : keys) {
            holdWith(key, OWNER, 1, LONG_LEASE);
            admin.commands().hset(LockKeys.since(key), OWNER, "1700000000000");
        }
        try (Subscriber first = subscribe(keys.get(0)); Subscriber second = subscribe(keys.get(1))) {

            assertThat(release(keys, 0, OWNER)).containsExactly(2L, 2L);

            assertThat(admin.commands().exists(keys.get(0), keys.get(1), LockKeys.since(keys.get(0)),
                    LockKeys.since(keys.get(1)))).isZero();
            assertThat(first.messagesSoFar()).containsExactly("0");
            assertThat(second.messagesSoFar()).containsExactly("0");
        }
    }

    @Test
    void innerHoldsCountDownAndAreReArmedWithoutPublishing() {
        List<String> keys = keys(2);
        holdWith(keys.get(0), OWNER, 2, SHORT_LEASE);
        holdWith(keys.get(1), OWNER, 1, SHORT_LEASE);
        try (Subscriber first = subscribe(keys.get(0)); Subscriber second = subscribe(keys.get(1))) {

            assertThat(release(keys, LONG_LEASE, OWNER)).containsExactly(1L, 2L);

            assertThat(admin.commands().hgetall(keys.get(0))).isEqualTo(Map.of(OWNER, "1"));
            assertThat(admin.commands().pttl(keys.get(0))).as("re-armed").isGreaterThan(SHORT_LEASE);
            assertThat(first.messagesSoFar()).isEmpty();
            assertThat(second.messagesSoFar()).containsExactly("0");
        }
    }

    @Test
    void aLockTheOwnerDoesNotHoldIsLeftAsItIsAndTheOthersAreReleased() {
        List<String> keys = keys(3);
        holdWith(keys.get(0), OWNER, 1, LONG_LEASE);
        holdWith(keys.get(1), OTHER, 1, SHORT_LEASE);
        try (Subscriber other = subscribe(keys.get(1)); Subscriber missing = subscribe(keys.get(2))) {

            assertThat(release(keys, 0, OWNER)).containsExactly(2L, 0L, 0L);

            assertThat(admin.commands().exists(keys.get(0), keys.get(2))).isZero();
            assertThat(admin.commands().hgetall(keys.get(1))).isEqualTo(Map.of(OTHER, "1"));
            assertThat(admin.commands().pttl(keys.get(1))).isBetween(1L, SHORT_LEASE);
            assertThat(other.messagesSoFar()).isEmpty();
            assertThat(missing.messagesSoFar()).isEmpty();
        }
    }

    @Test
    void aRedissonWaiterWakesAndTakesTheLockAtTheRelease() throws Exception {
        List<String> keys = keys(2);
        assertThat(claim(keys, LONG_LEASE, OWNER)).isNull();
        RedissonClient redisson = Redissons.open(redis.uri());
        try {
            RLock theirs = redisson.getLock(keys.get(1));
            CompletableFuture<Boolean> waiting = theirs.tryLockAsync(60, 30, TimeUnit.SECONDS, 99).toCompletableFuture();
            await().atMost(Duration.ofSeconds(30)).until(() -> admin.commands().pubsubNumsub(
                    LockKeys.unlockChannel(keys.get(1))).get(LockKeys.unlockChannel(keys.get(1))) > 0);

            assertThat(release(keys, 0, OWNER)).containsExactly(2L, 2L);

            // woken by the message, not by its 60 s lease: it takes the lock long before that
            assertThat(waiting.get(20, TimeUnit.SECONDS)).isTrue();
            assertThat(theirs.isHeldByThread(99)).isTrue();
            theirs.forceUnlock();
        } finally {
            Redissons.close(redisson);
        }
    }

    // ---- helpers

    private static List<String> keys(int n) {
        String base = "multi-scripts:" + UUID.randomUUID();
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            keys.add(base + ":" + i);
        }
        return keys;
    }

    private void holdWith(String key, String field, int holds, long pttl) {
        admin.commands().hset(key, field, Integer.toString(holds));
        assertThat(admin.commands().pexpire(key, pttl)).isTrue();
    }

    private List<Object> claim(List<String> keys, long leaseMillis, String field) {
        return acquire(keys, leaseMillis, field, "1");
    }

    /** multi_acquire's reply: null when it took them all (nil), else {i, pttl}. */
    private List<Object> acquire(List<String> keys, long leaseMillis, String field, String claim) {
        List<String> declared = new ArrayList<>();
        for (String key : keys) {
            declared.add(key);
            declared.add(LockKeys.since(key));
        }
        List<Object> reply = admin.commands().eval(LuaScript.MULTI_ACQUIRE.body(), ScriptOutputType.MULTI,
                declared.toArray(String[]::new), Long.toString(leaseMillis), field, claim);
        return reply == null || reply.isEmpty() || reply.get(0) == null ? null : reply;
    }

    private List<Object> release(List<String> keys, long rearmMillis, String field) {
        List<String> declared = new ArrayList<>();
        for (String key : keys) {
            declared.add(key);
            declared.add(LockKeys.unlockChannel(key));
            declared.add(LockKeys.since(key));
        }
        return admin.commands().eval(LuaScript.MULTI_RELEASE.body(), ScriptOutputType.MULTI,
                declared.toArray(String[]::new), "0", Long.toString(rearmMillis), field, "publish");
    }

    private Subscriber subscribe(String key) {
        return new Subscriber(subscriberClient.connectPubSub(), LockKeys.unlockChannel(key));
    }

    /** A pub/sub connection subscribed to one channel, recording what arrives on it. */
    private final class Subscriber implements AutoCloseable {
        private final StatefulRedisPubSubConnection<String, String> connection;
        private final String channel;
        private final String marker = "marker-" + UUID.randomUUID();
        private final List<String> received = new ArrayList<>();

        Subscriber(StatefulRedisPubSubConnection<String, String> connection, String channel) {
            this.connection = connection;
            this.channel = channel;
            connection.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String from, String message) {
                    if (from.equals(channel)) {
                        synchronized (received) {
                            received.add(message);
                        }
                    }
                }
            });
            connection.sync().subscribe(channel); // returns once Redis confirmed
        }

        /** Everything published on the channel so far (publishes a marker and waits for it). */
        List<String> messagesSoFar() {
            assertThat(admin.commands().publish(channel, marker)).as("subscribers of %s", channel).isEqualTo(1L);
            await().atMost(Duration.ofSeconds(30)).until(() -> snapshot().contains(marker));
            List<String> messages = snapshot();
            return messages.subList(0, messages.lastIndexOf(marker)).stream().filter(m -> !m.equals(marker)).toList();
        }

        private List<String> snapshot() {
            synchronized (received) {
                return new ArrayList<>(received);
            }
        }

        @Override
        public void close() {
            connection.close();
        }
    }
}
