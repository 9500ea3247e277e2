package dev.padlock.spring.boot3.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.micrometer.PadlockMetrics;
import dev.padlock.micrometer.PadlockObservations;
import dev.padlock.shedlock.PadlockLockProvider;
import dev.padlock.spring.boot.PadlockAutoConfiguration;
import dev.padlock.spring.boot.boot3.PadlockBoot3HealthAutoConfiguration;
import dev.padlock.spring.boot.boot3.PadlockBoot3HealthIndicator;
import dev.padlock.spring.integration6.PadlockLockRegistry6;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * The starter's auto-configuration on Spring Boot 3.5 and Spring Integration 6.5 (Boot 3.5.7's
 * BOM), each context on a real Redis: every bean, the Boot 3 health indicator, and the Spring
 * Integration 7 registry left alone although its module is on the class path.
 */
@RedisTest
@ExtendWith(OutputCaptureExtension.class)
class Boot3AutoConfigurationTest {
    /** Boot 4's indicator, named: its class cannot load on this line. */
    private static final String BOOT4_INDICATOR = "dev.padlock.spring.boot.PadlockHealthIndicator";

    private ApplicationContextRunner runner;

    @BeforeEach
    void runner(RedisEndpoint redis) {
        runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(PadlockAutoConfiguration.class,
                        PadlockBoot3HealthAutoConfiguration.class))
                .withPropertyValues("padlock.uri=" + redis.uri());
    }

    @Test
    void theLineIsBoot35WithSpringIntegration65() {
        assertThat(SpringBootVersion.getVersion()).startsWith("3.5.");
        assertThat(LockRegistry.class.getPackage().getImplementationVersion()).startsWith("6.5.");
    }

    @Test
    void everyBeanOnBoot35AndTheHealthIndicatorIsBoot3s(RedisAdmin admin) {
        runner.run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(LockClient.class)
                    .hasSingleBean(PadlockLockRegistry6.class)
                    .hasSingleBean(PadlockLockProvider.class)
                    .hasSingleBean(PadlockMetrics.class)
                    .hasSingleBean(PadlockBoot3HealthIndicator.class)
                    .doesNotHaveBean(PadlockObservations.class); // no ObservationRegistry here
            assertThat(context.getBean("padlockHealthIndicator")).isInstanceOf(PadlockBoot3HealthIndicator.class);
            assertThat(Set.of(context.getBeanDefinitionNames())).noneMatch(name -> name.contains(BOOT4_INDICATOR));

            String key = UUID.randomUUID().toString();
            Lock lock = context.getBean(PadlockLockRegistry6.class).obtain(key);
            assertThat(lock.tryLock()).isTrue();
            assertThat(admin.commands().exists("padlock:" + key)).isOne();
            lock.unlock();

            PadlockBoot3HealthIndicator health = context.getBean(PadlockBoot3HealthIndicator.class);
            assertThat(health.health().getStatus()).isEqualTo(Status.UP);
            assertThat(health.health().getDetails()).containsEntry("redis", "reachable")
                    .containsEntry("watchdog", "running").containsEntry("leasesLostSinceStart", 0L)
                    .containsKey("clientId");
            context.getBean(LockClient.class).close();
            assertThat(health.health().getStatus()).as("a closed client").isEqualTo(Status.DOWN);
        });
    }

    @Test
    void theHealthIndicatorTurnsOffAsAnyBoot3Indicator() {
        runner.withPropertyValues("management.health.padlock.enabled=false").run(context ->
                assertThat(context).hasNotFailed().hasSingleBean(LockClient.class)
                        .doesNotHaveBean(PadlockBoot3HealthIndicator.class));
        runner.withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate.health")).run(context ->
                assertThat(context).hasNotFailed().hasSingleBean(LockClient.class)
                        .doesNotHaveBean("padlockHealthIndicator"));
    }

    @Test
    void metricsAndObservationsOnMicrometer115(RedisAdmin admin) {
        runner.withBean(ObservationRegistry.class, ObservationRegistry::create).run(context -> {
            assertThat(context).hasSingleBean(PadlockObservations.class);
            SimpleMeterRegistry meters = new SimpleMeterRegistry();
            context.getBean(PadlockMetrics.class).bindTo(meters);
            RLock lock = context.getBean(LockClient.class).getLock("orders:" + UUID.randomUUID());
            lock.lock();
            lock.unlock();
            assertThat(meters.get("padlock.lock.acquire").tag("outcome", "acquired").timer().count()).isOne();
        });
    }

    @Test
    void theIssuesSetUpStartsAndSaysWhichRegistryItNeeds(CapturedOutput output) {
        // Boot 3.5 with lock-spring-integration (Spring Integration 7's registry) and not lock-spring-integration6
        runner.withClassLoader(new FilteredClassLoader(PadlockLockRegistry6.class)).run(context ->
                assertThat(context).hasNotFailed().hasSingleBean(LockClient.class).doesNotHaveBean(LockRegistry.class));
        assertThat(output).containsOnlyOnce("Padlock: no Spring Integration lock registry configured")
                .contains("needs Spring Integration 7 (Spring Boot 4), and the class path has Spring Integration 6.5.")
                .contains("use dev.padlock:lock-spring-integration6");
    }
}
