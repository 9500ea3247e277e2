package dev.padlock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.LockClient;
import dev.padlock.micrometer.PadlockObservations;
import dev.padlock.spring.boot.boot3.PadlockBoot3HealthAutoConfiguration;
import dev.padlock.spring.integration.PadlockLockRegistry;
import dev.padlock.spring.integration6.PadlockLockRegistry6;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.integration.handler.advice.LockRequestHandlerAdvice;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * The starter on Boot 4 and Spring Integration 7, as the build has them, and the other lines'
 * absences simulated by hiding classes: the registry that fits, the Boot 3 half backing off, and
 * one log line for each feature that cannot exist on the line found (never a failed start).
 */
@RedisTest
@ExtendWith(OutputCaptureExtension.class)
class PadlockBootLinesTest {
    private static final String BOOT3_HALF = PadlockBoot3HealthAutoConfiguration.class.getName();
    private ApplicationContextRunner runner;

    @BeforeEach
    void runner(RedisEndpoint redis) {
        runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(PadlockAutoConfiguration.class,
                        PadlockBoot3HealthAutoConfiguration.class))
                .withPropertyValues("padlock.uri=" + redis.uri());
    }

    private static FilteredClassLoader hiding(String... classNames) {
        Set<String> hidden = Set.of(classNames);
        Predicate<String> filter = hidden::contains;
        return new FilteredClassLoader(filter);
    }

    @Test
    void onBoot4TheBoot3HalfBacksOffAndTheSpringIntegration7RegistryServes(CapturedOutput output) {
        runner.run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(PadlockHealthIndicator.class)
                    .hasSingleBean(PadlockLockRegistry.class).doesNotHaveBean(PadlockLockRegistry6.class);
            // by name: Boot 3's indicator class cannot even be loaded here, which is the point
            assertThat(context.getBeanDefinitionNames()).noneMatch(name -> name.contains(BOOT3_HALF));
        });
        assertThat(output).doesNotContain("Padlock: no Spring Integration lock registry");
    }

    @Test
    void springIntegration7WithOnlyTheRegistryFor65StartsAndSaysWhatIsMissing(CapturedOutput output) {
        runner.withClassLoader(hiding(SpringIntegrationLine.REGISTRY_7)).run(context ->
                assertThat(context).hasNotFailed().hasSingleBean(LockClient.class)
                        .doesNotHaveBean(PadlockLockRegistry6.class));
        assertThat(output).containsOnlyOnce("Padlock: no Spring Integration lock registry configured")
                .contains("for 7 use dev.padlock:lock-spring-integration (PadlockLockRegistry)");
    }

    @Test
    void springIntegration65WithOnlyTheRegistryFor7StartsAndSaysWhatIsMissing(CapturedOutput output) {
        // 6.5 as the registries see it: no DistributedLock; the NoClassDefFoundError case
        runner.withClassLoader(hiding(DistributedLock.class.getName(), SpringIntegrationLine.REGISTRY_6)).run(context ->
                assertThat(context).hasNotFailed().hasSingleBean(LockClient.class)
                        .doesNotHaveBean(PadlockLockRegistry.class));
        assertThat(output).containsOnlyOnce("Padlock: no Spring Integration lock registry configured")
                .contains("on 6.5 (Spring Boot 3.5) use dev.padlock:lock-spring-integration6");
    }

    @Test
    void springIntegrationOlderThan65StartsAndSaysSo(CapturedOutput output) {
        runner.withClassLoader(hiding(DistributedLock.class.getName(), LockRequestHandlerAdvice.class.getName()))
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(LockClient.class)
                        .doesNotHaveBean(PadlockLockRegistry.class).doesNotHaveBean(PadlockLockRegistry6.class));
        assertThat(output).containsOnlyOnce("Padlock: no Spring Integration lock registry configured")
                .contains("is older than 6.5");
    }

    @Test
    void whyNoRegistryIsSilentWhenARegistryFitsOrNoneWasAskedFor() {
        ClassLoader here = getClass().getClassLoader();
        assertThat(SpringIntegrationLine.whyNoRegistry(here)).isEmpty();
        assertThat(SpringIntegrationLine.whyNoRegistry(hiding(SpringIntegrationLine.REGISTRY_7,
                SpringIntegrationLine.REGISTRY_6))).as("no Padlock registry module").isEmpty();
        assertThat(SpringIntegrationLine.whyNoRegistry(hiding(DistributedLock.class.getName())))
                .as("6.5 with lock-spring-integration6").isEmpty();
        assertThat(SpringIntegrationLine.whyNoRegistry(hiding(SpringIntegrationLine.LOCK_REGISTRY)))
                .as("no Spring Integration").isEmpty();
    }

    @Test
    void withoutAnObservationRegistryOneInfoLineSaysThereAreNoObservations(CapturedOutput output) {
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(PadlockObservations.class));
        assertThat(output).containsOnlyOnce("Padlock: no observations: the application has no ObservationRegistry bean");
        runner.withPropertyValues("padlock.metrics.observations=false").run(context -> assertThat(context).hasNotFailed());
        assertThat(output).containsOnlyOnce("Padlock: no observations");
    }
}
