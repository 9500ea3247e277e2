package dev.padlock.spring.boot;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.LockObserver;
import dev.padlock.micrometer.PadlockMetrics;
import dev.padlock.micrometer.PadlockObservations;
import dev.padlock.shedlock.PadlockLockProvider;
import dev.padlock.spring.boot.health.PadlockLeaseStats;
import dev.padlock.spring.integration.PadlockLockRegistry;
import dev.padlock.spring.integration6.PadlockLockRegistry6;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Padlock's auto-configuration: a {@link LockClient} from {@code padlock.*} (falling back to
 * {@code spring.data.redis.*}), closed with the context and told of every {@link LockObserver}
 * bean; and, each when its library and Padlock module are on the class path, a Spring Integration
 * lock registry ({@link PadlockLockRegistry} on Spring Integration 7, {@link PadlockLockRegistry6}
 * on 6.5), a ShedLock {@link PadlockLockProvider}, Micrometer's {@link PadlockMetrics} and
 * {@link PadlockObservations}, and an Actuator health indicator ({@code padlock}). Every bean backs
 * off when the application defines its own.
 *
 * <p>It runs on Spring Boot 4 and 3.5: every nested configuration names the classes it needs (no
 * class literal), so Boot reads its conditions without loading a class that the other line lacks.
 * The health indicator here is Boot 4's; Boot 3's is
 * {@code dev.padlock.spring.boot.boot3.PadlockBoot3HealthAutoConfiguration} (module
 * {@code padlock-spring-boot3-support}), listed beside this one. The ordering names both lines'
 * observation and metrics auto-configurations. Where a Padlock module is present but its feature
 * cannot exist on the line found, one log line says what is missing and why.
 */
@AutoConfiguration(afterName = {
        // Boot 4
        "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        // Boot 3
        "org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration"})
@ConditionalOnClass(LockClient.class)
@EnableConfigurationProperties(PadlockProperties.class)
public class PadlockAutoConfiguration {

    /** Fails startup on a misspelled {@code padlock.*} key, before anything connects. */
    @Bean
    public PadlockPropertiesCheck padlockPropertiesCheck(Environment environment) {
        return new PadlockPropertiesCheck(environment);
    }

    /**
     * The client; every {@link LockObserver} bean (metrics, observations, health) observes it.
     * Created after {@link PadlockPropertiesCheck}, so that a misspelled key is reported as such.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public LockClient padlockLockClient(PadlockProperties properties, Environment environment,
            ObjectProvider<LockObserver> observers, PadlockPropertiesCheck propertiesChecked) {
        LockConfig.Builder config = PadlockConnection.configure(properties, environment);
        List<LockObserver> all = observers.orderedStream().toList();
        if (!all.isEmpty()) {
            config.observer(LockObserver.composite(all.toArray(LockObserver[]::new)));
        }
        return LockClient.create(config.build());
    }

    /** Micrometer meters (bound to the application's registries as a {@link MeterBinder}). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"io.micrometer.core.instrument.binder.MeterBinder",
            "dev.padlock.micrometer.PadlockMetrics"})
    @ConditionalOnProperty(prefix = "padlock.metrics", name = "enabled", matchIfMissing = true)
    static class MetricsConfiguration {
        @Bean
        @ConditionalOnMissingBean
        PadlockMetrics padlockMetrics(PadlockProperties properties) {
            PadlockProperties.Metrics metrics = properties.getMetrics();
            PadlockMetrics.Builder builder = PadlockMetrics.builder();
            switch (metrics.getLockNameTag()) {
                case NONE -> { }
                case NAME -> builder.lockNameTag();
                case PREFIX -> {
                    String separator = metrics.getNameSeparator();
                    builder.lockNameTag(name -> {
                        int end = name.indexOf(separator);
                        return end < 0 ? name : name.substring(0, end);
                    });
                }
                default -> throw new IllegalStateException("unknown lock-name-tag " + metrics.getLockNameTag());
            }
            return builder.build();
        }
    }

    /**
     * Observation API spans, when the application has an {@link ObservationRegistry} (Boot's
     * observation auto-configuration, of either line, runs first); without one, one INFO line says
     * that there are none and why.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"io.micrometer.observation.ObservationRegistry",
            "dev.padlock.micrometer.PadlockObservations"})
    @ConditionalOnProperty(prefix = "padlock.metrics", name = "observations", matchIfMissing = true)
    static class ObservationsConfiguration {
        @Configuration(proxyBeanMethods = false)
        @ConditionalOnBean(type = "io.micrometer.observation.ObservationRegistry")
        static class WithRegistry {
            @Bean
            @ConditionalOnMissingBean
            PadlockObservations padlockObservations(ObservationRegistry registry) {
                return new PadlockObservations(registry);
            }
        }

        @Configuration(proxyBeanMethods = false)
        @ConditionalOnMissingBean(type = "io.micrometer.observation.ObservationRegistry")
        static class WithoutRegistry {
            WithoutRegistry() {
                LoggerFactory.getLogger(PadlockAutoConfiguration.class).info("Padlock: no observations: the "
                        + "application has no ObservationRegistry bean (Spring Boot's actuator makes one); "
                        + "padlock.metrics.observations=false silences this line");
            }
        }
    }

    /**
     * Spring Integration's lock registry, the one for the line on the class path (see
     * {@link SpringIntegrationLine}); when a Padlock registry module is there but does not fit that
     * line, one WARN line says what is missing and why, instead of a {@code NoClassDefFoundError}.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = SpringIntegrationLine.LOCK_REGISTRY)
    static class IntegrationConfiguration {
        /** Spring Integration 7: {@link PadlockLockRegistry}. */
        @Configuration(proxyBeanMethods = false)
        @ConditionalOnClass(name = {SpringIntegrationLine.DISTRIBUTED_LOCK, SpringIntegrationLine.REGISTRY_7})
        static class SpringIntegration7 {
            @Bean
            @ConditionalOnMissingBean
            PadlockLockRegistry padlockLockRegistry(LockClient client, PadlockProperties properties) {
                PadlockProperties.Integration integration = properties.getIntegration();
                return integration.getExpireAfter() == null
                        ? new PadlockLockRegistry(client, integration.getRegistryKey())
                        : new PadlockLockRegistry(client, integration.getRegistryKey(), integration.getExpireAfter());
            }
        }

        /** Spring Integration 6.5 (Boot 3.5): {@link PadlockLockRegistry6}. */
        @Configuration(proxyBeanMethods = false)
        @ConditionalOnClass(name = {SpringIntegrationLine.SINCE_6_5, SpringIntegrationLine.REGISTRY_6})
        @ConditionalOnMissingClass(SpringIntegrationLine.DISTRIBUTED_LOCK)
        static class SpringIntegration65 {
            @Bean
            @ConditionalOnMissingBean
            PadlockLockRegistry6 padlockLockRegistry(LockClient client, PadlockProperties properties) {
                PadlockProperties.Integration integration = properties.getIntegration();
                return integration.getExpireAfter() == null
                        ? new PadlockLockRegistry6(client, integration.getRegistryKey())
                        : new PadlockLockRegistry6(client, integration.getRegistryKey(), integration.getExpireAfter());
            }
        }

        /** A Padlock registry module that does not fit the line: said once, at WARN. */
        @Configuration(proxyBeanMethods = false)
        @Conditional(SpringIntegrationLine.NoRegistry.class)
        static class NoRegistry {
            NoRegistry(ApplicationContext context) {
                SpringIntegrationLine.whyNoRegistry(context.getClassLoader())
                        .ifPresent(LoggerFactory.getLogger(PadlockAutoConfiguration.class)::warn);
            }
        }
    }

    /** ShedLock's lock provider. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"net.javacrumbs.shedlock.core.LockProvider",
            "dev.padlock.shedlock.PadlockLockProvider"})
    static class ShedLockConfiguration {
        @Bean
        @ConditionalOnMissingBean(type = "net.javacrumbs.shedlock.core.LockProvider")
        PadlockLockProvider padlockLockProvider(LockClient client, PadlockProperties properties) {
            return new PadlockLockProvider(client, properties.getShedlock().getKeyPrefix());
        }
    }

    /**
     * The Actuator health indicator {@code padlock} on Spring Boot 4 (whose health API is
     * {@code org.springframework.boot.health}); on Boot 3 this backs off and
     * {@code PadlockBoot3HealthAutoConfiguration} serves.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    @ConditionalOnEnabledHealthIndicator("padlock")
    static class HealthConfiguration {
        @Bean
        @ConditionalOnMissingBean
        PadlockLeaseStats padlockLeaseStats() {
            return new PadlockLeaseStats();
        }

        @Bean
        @ConditionalOnMissingBean(name = "padlockHealthIndicator")
        PadlockHealthIndicator padlockHealthIndicator(LockClient client, PadlockLeaseStats stats) {
            return new PadlockHealthIndicator(client, stats);
        }
    }
}
