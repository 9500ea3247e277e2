package dev.padlock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.micrometer.PadlockMetrics;
import dev.padlock.micrometer.PadlockObservations;
import dev.padlock.shedlock.PadlockLockProvider;
import dev.padlock.spring.integration.PadlockLockRegistry;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import io.lettuce.core.RedisURI;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import net.javacrumbs.shedlock.core.LockProvider;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.integration.support.locks.LockRegistry;

/** Every condition of {@link PadlockAutoConfiguration}, each context on a real Redis. */
@RedisTest
class PadlockAutoConfigurationTest {
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
    void everyBeanWhenEveryLibraryIsPresent() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(LockClient.class)
                    .hasSingleBean(PadlockLockRegistry.class)
                    .hasSingleBean(PadlockLockProvider.class)
                    .hasSingleBean(PadlockMetrics.class)
                    .hasSingleBean(PadlockHealthIndicator.class)
                    .doesNotHaveBean(PadlockObservations.class); // no ObservationRegistry here
            PadlockHealthIndicator health = context.getBean(PadlockHealthIndicator.class);
            assertThat(health.health().getStatus()).isEqualTo(Status.UP);
            context.getBean(LockClient.class).close();
            assertThat(health.health().getStatus()).as("a closed client").isEqualTo(Status.DOWN);
        });
    }

    /**
     * Issue 38: the health indicator reports the engine's line, which names what failed first, and
     * the URI's password stays out of it.
     */
    @Test
    void healthOfAClientStartedWithoutRedisNamesWhatFailedAndHidesThePassword() {
        String uri = redis.uri().replace("redis://", "redis://:secret-in-uri@") + "/9999";
        runner.withPropertyValues("padlock.uri=" + uri, "padlock.start-without-redis=true").run(context -> {
            Health health = context.getBean(PadlockHealthIndicator.class).health();

            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat(String.valueOf(health.getDetails().get("error")).lines().findFirst().orElseThrow())
                    .contains("not connected yet, last attempt: connect at redis://***@")
                    .contains("failed: selecting database 9999 failed: Redis answered ERR DB index is out of range")
                    .doesNotContain("secret-in-uri");
        });
    }

    @Test
    void observationsWhenTheApplicationHasAnObservationRegistry() {
        runner.withBean(ObservationRegistry.class, ObservationRegistry::create)
                .run(context -> assertThat(context).hasSingleBean(PadlockObservations.class));
        runner.withBean(ObservationRegistry.class, ObservationRegistry::create)
                .withPropertyValues("padlock.metrics.observations=false")
                .run(context -> assertThat(context).doesNotHaveBean(PadlockObservations.class));
    }

    @Test
    void eachIntegrationBacksOffWithoutItsLibrary() {
        runner.withClassLoader(new FilteredClassLoader(LockRegistry.class)).run(context ->
                assertThat(context).hasSingleBean(LockClient.class).doesNotHaveBean(PadlockLockRegistry.class));
        runner.withClassLoader(new FilteredClassLoader(LockProvider.class)).run(context ->
                assertThat(context).hasSingleBean(LockClient.class).doesNotHaveBean(PadlockLockProvider.class));
        runner.withClassLoader(new FilteredClassLoader(MeterBinder.class)).run(context ->
                assertThat(context).hasSingleBean(LockClient.class).doesNotHaveBean(PadlockMetrics.class));
        runner.withClassLoader(new FilteredClassLoader(HealthIndicator.class)).run(context ->
                assertThat(context).hasSingleBean(LockClient.class).doesNotHaveBean(PadlockHealthIndicator.class));
        runner.withClassLoader(new FilteredClassLoader(PadlockLockRegistry.class, PadlockLockProvider.class,
                PadlockMetrics.class)).run(context -> assertThat(context).hasSingleBean(LockClient.class)
                .doesNotHaveBean(PadlockLockRegistry.class).doesNotHaveBean(PadlockLockProvider.class)
                .doesNotHaveBean(PadlockMetrics.class));
    }

    @Test
    void propertiesTurnMetricsAndHealthOff() {
        runner.withPropertyValues("padlock.metrics.enabled=false", "management.health.padlock.enabled=false")
                .run(context -> assertThat(context).hasSingleBean(LockClient.class)
                        .doesNotHaveBean(PadlockMetrics.class).doesNotHaveBean(PadlockHealthIndicator.class));
    }

    @Test
    void everyBeanBacksOffForTheApplicationsOwn() {
        AtomicReference<LockClient> own = new AtomicReference<>();
        runner.withBean(LockClient.class, () -> {
            own.set(LockClient.connect(redis.uri()));
            return own.get();
        }).withBean(LockProvider.class, () -> configuration -> Optional.empty())
                .withBean("myRegistry", PadlockLockRegistry.class, () -> new PadlockLockRegistry(own.get(), "mine"))
                .withBean(PadlockMetrics.class, PadlockMetrics::create)
                .withBean("padlockHealthIndicator", HealthIndicator.class, () -> () -> null)
                .run(context -> {
                    assertThat(context).hasSingleBean(LockClient.class).hasSingleBean(LockProvider.class)
                            .hasSingleBean(PadlockLockRegistry.class).hasSingleBean(PadlockMetrics.class)
                            .doesNotHaveBean(PadlockHealthIndicator.class);
                    assertThat(context.getBean(LockClient.class)).isSameAs(own.get());
                    assertThat(context.getBean(LockProvider.class)).isNotInstanceOf(PadlockLockProvider.class);
                });
    }

    @Test
    void theClientIsClosedWithTheContextAndObservedByTheMetrics() {
        AtomicReference<LockClient> client = new AtomicReference<>();
        runner.run(context -> {
            client.set(context.getBean(LockClient.class));
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            context.getBean(PadlockMetrics.class).bindTo(registry);
            RLock lock = client.get().getLock("orders:" + UUID.randomUUID());
            lock.lock();
            lock.unlock();
            assertThat(registry.get("padlock.lock.acquire").tag("outcome", "acquired").timer().count()).isOne();
        });
        assertThatThrownBy(() -> client.get().getLock("x")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void withoutPadlockPropertiesTheSpringDataRedisConnectionIsUsed(RedisAdmin admin) {
        RedisURI uri = RedisURI.create(redis.uri());
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(PadlockAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=" + uri.getHost(), "spring.data.redis.port=" + uri.getPort())
                .run(context -> {
                    String name = "fallback:" + UUID.randomUUID();
                    RLock lock = context.getBean(LockClient.class).getLock(name);
                    lock.lock();
                    assertThat(admin.commands().exists(name)).isOne();
                    lock.unlock();
                });
        // padlock.uri wins over spring.data.redis.*
        runner.withPropertyValues("spring.data.redis.port=1").run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void theLockNameTagIsThePrefixWhenAskedFor() {
        runner.withPropertyValues("padlock.metrics.lock-name-tag=prefix").run(context -> {
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            context.getBean(PadlockMetrics.class).bindTo(registry);
            RLock lock = context.getBean(LockClient.class).getLock("invoices:" + UUID.randomUUID());
            lock.lock();
            lock.unlock();
            assertThat(registry.get("padlock.lock.held").tag("name", "invoices").timer().count()).isOne();
        });
    }

    @Test
    void configurationMetadataIsGenerated() throws Exception {
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).isNotNull();
            String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(json).contains("padlock.uri", "padlock.watchdog-timeout", "padlock.command-timeout",
                    "padlock.cluster.nodes", "padlock.sentinel.master", "padlock.replica-acknowledgement.replicas",
                    "padlock.metrics.lock-name-tag", "padlock.scripting", "padlock.locked.enabled");
        }
    }
}
