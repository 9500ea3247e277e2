package dev.padlock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.ReplicaAcknowledgementException;
import dev.padlock.micrometer.PadlockMetrics;
import dev.padlock.micrometer.PadlockObservations;
import dev.padlock.shedlock.PadlockLockProvider;
import dev.padlock.spi.LockKeys;
import dev.padlock.spi.RedisAccess;
import dev.padlock.spring.integration.PadlockLockRegistry;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.assertj.core.api.ThrowableAssert;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * One context per {@code padlock.*} property, each on a real Redis: the property reaches the
 * client or bean it names; a number without a unit is seconds; a value below its floor and a
 * misspelled key fail startup with a message naming the key.
 */
@RedisTest
class PadlockPropertiesTest {
    private ApplicationContextRunner runner;
    private RedisEndpoint redis;

    @BeforeEach
    void runner(RedisEndpoint endpoint) {
        redis = endpoint;
        runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(PadlockAutoConfiguration.class))
                .withPropertyValues("padlock.uri=" + endpoint.uri());
    }

    @Test
    void aMisspelledKeyFailsStartupNamingTheClosestKnownOne() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(PadlockAutoConfiguration.class))
                .withPropertyValues("padlock.url=" + redis.uri())
                .run(context -> assertThat(failure(context)).contains("padlock.url").contains("did you mean 'padlock.uri'"));
        runner.withPropertyValues("padlock.watchdog-timout=5s")
                .run(context -> assertThat(failure(context)).contains("padlock.watchdog-timout")
                        .contains("did you mean 'padlock.watchdog-timeout'"));
        runner.withPropertyValues("padlock.shedlock.prefix=jobs:")
                .run(context -> assertThat(failure(context)).contains("did you mean 'padlock.shedlock.key-prefix'"));
    }

    @Test
    void uri(RedisAdmin admin) {
        runner.run(context -> {
            String name = "uri:" + UUID.randomUUID();
            RLock lock = context.getBean(LockClient.class).getLock(name);
            lock.lock();
            assertThat(admin.commands().exists(name)).isOne();
            lock.unlock();
        });
    }

    @Test
    void clientNameElseTheApplicationsName(RedisAdmin admin) {
        runner.withPropertyValues("padlock.client-name=billing-worker", "spring.application.name=billing")
                .run(context -> assertThat(registered(context, admin)).isEqualTo("billing-worker"));
        runner.withPropertyValues("spring.application.name=billing")
                .run(context -> assertThat(registered(context, admin)).isEqualTo("billing"));
    }

    @Test
    void watchdogTimeoutWithoutAUnitIsSeconds() {
        runner.withPropertyValues("padlock.watchdog-timeout=5").run(context -> {
            RLock lock = context.getBean(LockClient.class).getLock("watchdog:" + UUID.randomUUID());
            lock.lock();
            try {
                assertThat(lock.remainTimeToLive()).isBetween(3_000L, 5_000L);
            } finally {
                lock.unlock();
            }
        });
        runner.withPropertyValues("padlock.watchdog-timeout=2500ms").run(context -> {
            RLock lock = context.getBean(LockClient.class).getLock("watchdog:" + UUID.randomUUID());
            lock.lock();
            try {
                assertThat(lock.remainTimeToLive()).isBetween(1_000L, 2_500L);
            } finally {
                lock.unlock();
            }
        });
    }

    @Test
    void watchdogTimeoutBelowItsFloorFailsStartup() {
        runner.withPropertyValues("padlock.watchdog-timeout=500ms").run(context -> assertThat(failure(context))
                .contains("padlock.watchdog-timeout").contains("at least 1000ms"));
    }

    @Test
    void commandTimeoutWithoutAUnitIsSeconds() {
        runner.withPropertyValues("padlock.command-timeout=3").run(context ->
                assertThat(RedisAccess.of(context.getBean(LockClient.class)).commandTimeout()).isEqualTo(Duration.ofSeconds(3)));
        runner.withPropertyValues("padlock.command-timeout=250ms").run(context ->
                assertThat(RedisAccess.of(context.getBean(LockClient.class)).commandTimeout()).isEqualTo(Duration.ofMillis(250)));
    }

    @Test
    void commandTimeoutBelowItsFloorFailsStartup() {
        runner.withPropertyValues("padlock.command-timeout=3ms").run(context -> assertThat(failure(context))
                .contains("padlock.command-timeout").contains("at least 100ms"));
    }

    @Test
    void startWithoutRedis() throws Exception {
        int closedPort;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        ApplicationContextRunner down = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(PadlockAutoConfiguration.class))
                .withPropertyValues("padlock.uri=redis://127.0.0.1:" + closedPort, "padlock.command-timeout=500ms");
        down.run(context -> assertThat(failure(context)).contains("127.0.0.1:" + closedPort));
        down.withPropertyValues("padlock.start-without-redis=true").run(context -> {
            assertThat(context).hasNotFailed();
            RLock lock = context.getBean(LockClient.class).getLock("down:" + UUID.randomUUID());
            org.assertj.core.api.Assertions.assertThatThrownBy(lock::tryLock)
                    .isInstanceOf(dev.padlock.RedisUnavailableException.class).hasMessageContaining("not connected yet");
        });
    }

    /** Issue 40: {@code padlock.scripting=functions} runs the scripts with FCALL of the library padlock, loaded at startup. */
    @Test
    void scriptingFunctions(RedisAdmin admin) {
        org.junit.jupiter.api.Assumptions.assumeTrue(!admin.commands().info("server").contains("redis_version:6."),
                "Redis Functions need Redis 7");
        admin.commands().functionFlush(io.lettuce.core.FlushMode.SYNC);
        runner.withPropertyValues("padlock.scripting=functions").run(context -> {
            assertThat(admin.commands().functionList("padlock")).as("loaded at startup").hasSize(1);
            long before = fcalls(admin);
            RLock lock = context.getBean(LockClient.class).getLock("scripting:" + UUID.randomUUID());
            lock.lock();
            lock.unlock();
            assertThat(fcalls(admin)).isGreaterThan(before);
        });
        admin.commands().functionFlush(io.lettuce.core.FlushMode.SYNC);
        runner.run(context -> {
            context.getBean(LockClient.class).getLock("scripting:" + UUID.randomUUID()).tryLock();
            assertThat(admin.commands().functionList("padlock")).as("eval by default: no library").isEmpty();
        });
        runner.withPropertyValues("padlock.scripting=lua").run(context -> assertThat(failure(context))
                .contains("padlock.scripting"));
    }

    private static long fcalls(RedisAdmin admin) {
        return admin.commandStats().calls("fcall");
    }

    @Test
    void clusterNodes() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(PadlockAutoConfiguration.class))
                .withPropertyValues("padlock.cluster.nodes=redis://127.0.0.1:1,redis://127.0.0.1:2", "padlock.command-timeout=1s")
                .run(context -> assertThat(failure(context)).contains("127.0.0.1:1"));
    }

    @Test
    void sentinelMasterNodesAndPassword() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(PadlockAutoConfiguration.class))
                .withPropertyValues("padlock.sentinel.master=orders", "padlock.sentinel.nodes=127.0.0.1:1",
                        "padlock.sentinel.password=secret", "padlock.command-timeout=1s")
                .run(context -> assertThat(failure(context)).contains("127.0.0.1:1").contains("orders")
                        .doesNotContain("secret"));
    }

    @Test
    void replicaAcknowledgementReplicasAndTimeout() {
        runner.withPropertyValues("padlock.replica-acknowledgement.replicas=1",
                "padlock.replica-acknowledgement.timeout=200ms").run(context -> {
                    RLock lock = context.getBean(LockClient.class).getLock("acked:" + UUID.randomUUID());
                    ThrowableAssert.ThrowingCallable noReplica = () -> lock.tryLock(0, 10, TimeUnit.SECONDS);
                    org.assertj.core.api.Assertions.assertThatThrownBy(noReplica)
                            .isInstanceOf(ReplicaAcknowledgementException.class);
                });
        runner.withPropertyValues("padlock.replica-acknowledgement.timeout=1ms").run(context ->
                assertThat(failure(context)).contains("padlock.replica-acknowledgement.timeout"));
    }

    @Test
    void metricsEnabledObservationsLockNameTagAndNameSeparator() {
        runner.withPropertyValues("padlock.metrics.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(PadlockMetrics.class));
        runner.withBean(ObservationRegistry.class, ObservationRegistry::create)
                .withPropertyValues("padlock.metrics.observations=false")
                .run(context -> assertThat(context).doesNotHaveBean(PadlockObservations.class));
        runner.withPropertyValues("padlock.metrics.lock-name-tag=prefix", "padlock.metrics.name-separator=/")
                .run(context -> {
                    SimpleMeterRegistry registry = new SimpleMeterRegistry();
                    context.getBean(PadlockMetrics.class).bindTo(registry);
                    RLock lock = context.getBean(LockClient.class).getLock("invoices/" + UUID.randomUUID());
                    lock.lock();
                    lock.unlock();
                    assertThat(registry.get("padlock.lock.held").tag("name", "invoices").timer().count()).isOne();
                });
    }

    @Test
    void integrationRegistryKeyAndExpireAfter(RedisAdmin admin) {
        runner.withPropertyValues("padlock.integration.registry-key=orders", "padlock.integration.expire-after=7")
                .run(context -> {
                    Lock lock = context.getBean(PadlockLockRegistry.class).obtain("42");
                    lock.lock();
                    try {
                        assertThat(admin.commands().pttl("orders:42")).isBetween(5_000L, 7_000L);
                    } finally {
                        lock.unlock();
                    }
                });
    }

    @Test
    void shedlockKeyPrefix() {
        runner.withPropertyValues("padlock.shedlock.key-prefix=jobs:")
                .run(context -> assertThat(context.getBean(PadlockLockProvider.class).key("report")).isEqualTo("jobs:report"));
    }

    private static String registered(AssertableApplicationContext context, RedisAdmin admin) {
        LockClient client = context.getBean(LockClient.class);
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20))
                .until(() -> admin.commands().hget(LockKeys.client(client.getId()), "application") != null);
        return admin.commands().hget(LockKeys.client(client.getId()), "application");
    }

    /** The startup failure's messages, causes included. */
    private static String failure(AssertableApplicationContext context) {
        assertThat(context).hasFailed();
        StringBuilder messages = new StringBuilder();
        for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
            messages.append(t.getMessage()).append('\n');
        }
        return messages.toString();
    }
}
