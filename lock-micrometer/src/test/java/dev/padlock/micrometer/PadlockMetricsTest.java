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

    /** A counter's count, 0 while it is not made yet (counters are made at their first event). */
    private static double count(SimpleMeterRegistry registry, String meter, String tag, String value) {
        io.micrometer.core.instrument.Counter counter = registry.find(meter).tag(tag, value).counter();
        return counter == null ? 0 : counter.count();
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
        long lockedAt = System.nanoTime(); // the hold's timer started before lock() returned
        assertThat(registry.get("padlock.lock.active").tag("kind", "lock").longTaskTimer().activeTasks()).isOne();
        Thread.sleep(20); // the work done under the lock, so the hold lasts a while; nothing waits on it
        double heldAtLeastMillis = (System.nanoTime() - lockedAt) / 1e6; // and stops after unlock() is called
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
        await().atMost(Duration.ofSeconds(30)).until(() ->
                registry.get("padlock.lock.waiting").tag("kind", "lock").gauge().value() == 1);
        other.getLock(name).forceUnlock();
        waiter.join(30_000);
        assertThat(waiter.isAlive()).as("the waiter got the lock and let it go").isFalse();

        assertThat(registry.get("padlock.lock.acquire").tags("kind", "lock", "outcome", "acquired").timer().count())
                .isEqualTo(2);
        assertThat(registry.get("padlock.lock.acquire").tags("kind", "lock", "outcome", "timeout").timer().count())
                .isOne();
        assertThat(registry.get("padlock.lock.acquire").tags("kind", "fair", "outcome", "acquired").timer().count())
                .isOne();
        assertThat(registry.get("padlock.lock.held").tag("kind", "lock").timer().count()).isEqualTo(2);
        assertThat(registry.get("padlock.lock.held").tag("kind", "lock").timer().max(TimeUnit.MILLISECONDS))
                .as("the hold as timed here, whatever the scheduler made of the 20 ms")
                .isGreaterThanOrEqualTo(heldAtLeastMillis);
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
        // renewed every 500 ms: a stall of a second on a loaded machine does not lose the lease before the DEL
        LockClient client = open(redis, metrics, Duration.ofMillis(1_500));
        metrics.bindTo(registry); // after the client: binding order does not matter
        String name = name("renewed");
        client.getLock(name).lock();
        await().atMost(Duration.ofSeconds(30)).until(() ->
                count(registry, "padlock.lease.renewals", "outcome", "renewed") >= 2);
        admin.commands().del(name);
        // the loss is counted, then the renewal that found it: wait for both, the second comes just after
        await().atMost(Duration.ofSeconds(30)).until(() ->
                count(registry, "padlock.lease.lost", "kind", "lock") == 1
                        && count(registry, "padlock.lease.renewals", "outcome", "lost") == 1);
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
