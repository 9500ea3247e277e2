package dev.padlock.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.LockObserver;
import dev.padlock.RLock;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The meters and observations of real acquisitions against a real Redis. */
@RedisTest
class PadlockMetricsTest {
    private final List<LockClient> clients = new ArrayList<>();

    private LockClient open(RedisEndpoint redis, LockObserver observer, Duration watchdog) {
        LockClient client = LockClient.create(LockConfig.builder().redisUri(redis.uri()).observer(observer)
                .watchdogTimeout(watchdog).build());
        clients.add(client);
        return client;
    }

    @AfterEach
    void close() {
        clients.forEach(LockClient::close);
    }

    private static String name(String prefix) {
        return prefix + ":" + UUID.randomUUID();
    }

    @Test
    void acquisitionsHoldsAndWaitsAreCountedByKindAndOutcome(RedisEndpoint redis) throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        PadlockMetrics metrics = PadlockMetrics.create();
        metrics.bindTo(registry);
        LockClient client = open(redis, metrics, Duration.ofSeconds(30));
        LockClient other = LockClient.connect(redis.uri());
        clients.add(other);

        String name = name("orders");
        RLock lock = client.getLock(name);
        lock.lock();
        assertThat(registry.get("padlock.lock.active").tag("kind", "lock").longTaskTimer().activeTasks()).isOne();
        Thread.sleep(20);
        lock.unlock();
        client.getFairLock(name("fair")).tryLock();

        other.getLock(name).lock();
        assertThat(lock.tryLock(30, TimeUnit.MILLISECONDS)).isFalse();
        CountDownLatch waiting = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            waiting.countDown();
            lock.lock();
            lock.unlock();
        });
        waiter.start();
        waiting.await();
        await().atMost(Duration.ofSeconds(5)).until(() ->
                registry.get("padlock.lock.waiting").tag("kind", "lock").gauge().value() == 1);
        other.getLock(name).forceUnlock();
        waiter.join(5_000);

        assertThat(registry.get("padlock.lock.acquire").tags("kind", "lock", "outcome", "acquired").timer().count())
                .isEqualTo(2);
        assertThat(registry.get("padlock.lock.acquire").tags("kind", "lock", "outcome", "timeout").timer().count())
                .isOne();
        assertThat(registry.get("padlock.lock.acquire").tags("kind", "fair", "outcome", "acquired").timer().count())
                .isOne();
        assertThat(registry.get("padlock.lock.held").tag("kind", "lock").timer().count()).isEqualTo(2);
        assertThat(registry.get("padlock.lock.held").tag("kind", "lock").timer().max(TimeUnit.MILLISECONDS))
                .isGreaterThanOrEqualTo(20);
        assertThat(registry.get("padlock.lock.active").tag("kind", "lock").longTaskTimer().activeTasks()).isZero();
        assertThat(registry.get("padlock.lock.waiting").tag("kind", "lock").gauge().value()).isZero();
        assertThat(registry.find("padlock.lock.acquire").tagKeys("name").meters()).as("no name tag unless asked")
                .isEmpty();
    }

    @Test
    void aSingleAttemptThatFindsTheLockHeldIsBusyNotATimeout(RedisEndpoint redis) throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        PadlockMetrics metrics = PadlockMetrics.create();
        metrics.bindTo(registry);
        LockClient client = open(redis, metrics, Duration.ofSeconds(30));
        LockClient other = LockClient.connect(redis.uri());
        clients.add(other);
        String name = name("poll");
        RLock held = other.getLock(name);
        held.lock();
        try {
            RLock lock = client.getLock(name);
            for (int i = 0; i < 3; i++) {
                assertThat(lock.tryLock()).isFalse();
            }
            assertThat(lock.tryLock(0, 5, TimeUnit.SECONDS)).isFalse();
            assertThat(lock.tryLock(20, TimeUnit.MILLISECONDS)).isFalse();
        } finally {
            held.unlock();
        }
        assertThat(registry.get("padlock.lock.acquire").tags("kind", "lock", "outcome", "busy").timer().count())
                .as("single attempts without a wait").isEqualTo(4);
        assertThat(registry.get("padlock.lock.acquire").tags("kind", "lock", "outcome", "timeout").timer().count())
                .as("only the wait that ran out").isOne();
    }

    @Test
    void renewalsAndLostLeasesAreCounted(RedisEndpoint redis, RedisAdmin admin) {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        PadlockMetrics metrics = PadlockMetrics.create();
        LockClient client = open(redis, metrics, Duration.ofMillis(300));
        metrics.bindTo(registry); // after the client: binding order does not matter
        String name = name("renewed");
        client.getLock(name).lock();
        await().atMost(Duration.ofSeconds(5)).until(() ->
                registry.get("padlock.lease.renewals").tag("outcome", "renewed").counter().count() >= 2);
        admin.commands().del(name);
        await().atMost(Duration.ofSeconds(5)).until(() ->
                registry.get("padlock.lease.lost").tag("kind", "lock").counter().count() == 1);
        assertThat(registry.get("padlock.lease.renewals").tag("outcome", "lost").counter().count()).isOne();
        assertThat(registry.get("padlock.lock.active").tag("kind", "lock").longTaskTimer().activeTasks()).isZero();
    }

    @Test
    void theLockNameIsATagOnlyThroughTheMapperTheUserGives(RedisEndpoint redis) {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        PadlockMetrics metrics = PadlockMetrics.builder()
                .lockNameTag(lockName -> lockName.substring(0, lockName.indexOf(':'))).build();
        metrics.bindTo(registry);
        LockClient client = open(redis, metrics, Duration.ofSeconds(30));
        for (int i = 0; i < 3; i++) {
            RLock lock = client.getLock(name("invoices"));
            lock.lock();
            lock.unlock();
        }
        assertThat(registry.get("padlock.lock.acquire").tags("name", "invoices", "outcome", "acquired").timer().count())
                .isEqualTo(3);
        assertThat(registry.find("padlock.lock.held").meters()).hasSize(1);
    }

    @Test
    void oneObservationPerAcquisitionAndOnePerHold(RedisEndpoint redis) {
        TestObservationRegistry observations = TestObservationRegistry.create();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        PadlockMetrics metrics = PadlockMetrics.create();
        metrics.bindTo(registry);
        LockClient client = open(redis, LockObserver.composite(metrics, new PadlockObservations(observations)),
                Duration.ofSeconds(30));
        String name = name("traced");
        RLock lock = client.getLock(name);
        lock.lock();
        lock.lock(); // a re-entry: an acquisition, no new hold
        lock.unlock();
        lock.unlock();

        TestObservationRegistryAssert.assertThat(observations)
                .hasNumberOfObservationsWithNameEqualTo(PadlockObservations.ACQUISITION, 2)
                .hasNumberOfObservationsWithNameEqualTo(PadlockObservations.HOLD, 1)
                .hasObservationWithNameEqualTo(PadlockObservations.HOLD).that()
                .hasBeenStarted().hasBeenStopped()
                .hasLowCardinalityKeyValue("padlock.kind", "lock")
                .hasHighCardinalityKeyValue("padlock.name", name)
                .hasParentObservationContextMatching(parent -> parent.getName().equals(PadlockObservations.ACQUISITION));
        TestObservationRegistryAssert.assertThat(observations).forAllObservationsWithNameEqualTo(
                PadlockObservations.ACQUISITION, observation -> observation
                        .hasLowCardinalityKeyValue("padlock.outcome", "acquired"));
        assertThat(registry.get("padlock.lock.acquire").timer().count()).as("the composite feeds both").isEqualTo(2);
    }
}
