package dev.padlock.spring.boot;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.LockObserver;
import dev.padlock.micrometer.PadlockMetrics;
import dev.padlock.micrometer.PadlockObservations;
import dev.padlock.shedlock.PadlockLockProvider;
import dev.padlock.spring.integration.PadlockLockRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import net.javacrumbs.shedlock.core.LockProvider;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Padlock's auto-configuration: a {@link LockClient} from {@code padlock.*} (falling back to
 * {@code spring.data.redis.*}), closed with the context and told of every {@link LockObserver}
 * bean; and, each when its library and Padlock module are on the class path, a Spring Integration
 * {@link PadlockLockRegistry}, a ShedLock {@link PadlockLockProvider}, Micrometer's
 * {@link PadlockMetrics} and {@link PadlockObservations}, and an Actuator health indicator
 * ({@code padlock}). Every bean backs off when the application defines its own.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration"})
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
    @ConditionalOnClass({MeterBinder.class, PadlockMetrics.class})
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

    /** Observation API spans, when the application has an {@link ObservationRegistry}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({ObservationRegistry.class, PadlockObservations.class})
    @ConditionalOnBean(ObservationRegistry.class)
    @ConditionalOnProperty(prefix = "padlock.metrics", name = "observations", matchIfMissing = true)
    static class ObservationsConfiguration {
        @Bean
        @ConditionalOnMissingBean
        PadlockObservations padlockObservations(ObservationRegistry registry) {
            return new PadlockObservations(registry);
        }
    }

    /** Spring Integration's lock registry. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({LockRegistry.class, PadlockLockRegistry.class})
    static class IntegrationConfiguration {
        @Bean
        @ConditionalOnMissingBean
        PadlockLockRegistry padlockLockRegistry(LockClient client, PadlockProperties properties) {
            PadlockProperties.Integration integration = properties.getIntegration();
            return integration.getExpireAfter() == null
                    ? new PadlockLockRegistry(client, integration.getRegistryKey())
                    : new PadlockLockRegistry(client, integration.getRegistryKey(), integration.getExpireAfter());
        }
    }

    /** ShedLock's lock provider. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({LockProvider.class, PadlockLockProvider.class})
    static class ShedLockConfiguration {
        @Bean
        @ConditionalOnMissingBean(LockProvider.class)
        PadlockLockProvider padlockLockProvider(LockClient client, PadlockProperties properties) {
            return new PadlockLockProvider(client, properties.getShedlock().getKeyPrefix());
        }
    }

    /** The Actuator health indicator {@code padlock}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
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
