package dev.padlock.spring.boot.boot3;

import dev.padlock.LockClient;
import dev.padlock.spring.boot.health.PadlockLeaseStats;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code padlock} health indicator on Spring Boot 3 ({@code management.health.padlock.enabled},
 * as any indicator). Listed in the starter's {@code AutoConfiguration.imports}; on Boot 4, whose
 * health API lives elsewhere, its class condition fails and the starter's own indicator serves.
 * Its conditions name Boot 3's classes by name: Boot reads them without loading this class.
 */
@AutoConfiguration(afterName = "dev.padlock.spring.boot.PadlockAutoConfiguration")
@ConditionalOnClass(name = PadlockBoot3HealthAutoConfiguration.BOOT3_HEALTH_INDICATOR)
@ConditionalOnBean(LockClient.class)
@ConditionalOnEnabledHealthIndicator("padlock")
public class PadlockBoot3HealthAutoConfiguration {
    /** Boot 3's health API; Boot 4 moved it to {@code org.springframework.boot.health.contributor}. */
    static final String BOOT3_HEALTH_INDICATOR = "org.springframework.boot.actuate.health.HealthIndicator";

    @Bean
    @ConditionalOnMissingBean
    PadlockLeaseStats padlockLeaseStats() {
        return new PadlockLeaseStats();
    }

    @Bean
    @ConditionalOnMissingBean(name = "padlockHealthIndicator")
    PadlockBoot3HealthIndicator padlockHealthIndicator(LockClient client, PadlockLeaseStats stats) {
        return new PadlockBoot3HealthIndicator(client, stats);
    }
}
