package dev.padlock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.micrometer.PadlockObservations;
import dev.padlock.spring.integration.PadlockLockRegistry;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.locks.Lock;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.IndicatedHealthDescriptor;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * One real Spring Boot application (auto-configuration, Actuator, Micrometer, Spring Integration,
 * ShedLock) on a real Redis: a lock through each bean, the meters they left, the health endpoint.
 */
@RedisTest
class PadlockBootApplicationTest {

    /** The application: auto-configuration only (a component scan here would pick up the starter's own classes). */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class Application {
    }

    @Test
    void aLockThroughEachBeanThenTheMetersAndTheHealthEndpoint(RedisEndpoint redis, RedisAdmin admin) throws Exception {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
                .web(WebApplicationType.NONE)
                .properties("padlock.uri=" + redis.uri(), "padlock.watchdog-timeout=3s",
                        "management.endpoint.health.show-details=always",
                        "management.endpoints.access.default=unrestricted")
                .run()) {
            String id = UUID.randomUUID().toString();

            RLock rlock = context.getBean(LockClient.class).getLock("orders:" + id);
            rlock.lock();
            assertThat(admin.commands().exists("orders:" + id)).isOne();
            rlock.unlock();

            Lock registryLock = context.getBean(PadlockLockRegistry.class).obtain(id);
            assertThat(registryLock.tryLock()).isTrue();
            assertThat(admin.commands().exists("padlock:" + id)).isOne();
            registryLock.unlock();

            LockProvider provider = context.getBean(LockProvider.class);
            SimpleLock job = provider.lock(new LockConfiguration(Instant.now(), "report-" + id, Duration.ofMinutes(1),
                    Duration.ZERO)).orElseThrow();
            assertThat(admin.commands().exists("shedlock:report-" + id)).isOne();
            job.unlock();
            assertThat(admin.commands().exists("shedlock:report-" + id)).isZero();

            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(meters.get("padlock.lock.acquire").tags("kind", "lock", "outcome", "acquired").timer().count())
                    .isEqualTo(2);
            assertThat(meters.get("padlock.lock.held").tag("kind", "lock").timer().count()).isEqualTo(2);
            assertThat(meters.get("padlock.lock.waiting").tag("kind", "lock").gauge().value()).isZero();
            assertThat(context.getBeansOfType(PadlockObservations.class)).hasSize(1);
            assertThat(meters.get(PadlockObservations.ACQUISITION).timer().count())
                    .as("observations reach Boot's meter handler too").isEqualTo(2);

            HealthEndpoint health = context.getBean(HealthEndpoint.class);
            IndicatedHealthDescriptor padlock = (IndicatedHealthDescriptor) health.healthForPath("padlock");
            assertThat(padlock.getStatus()).isEqualTo(Status.UP);
            assertThat(padlock.getDetails()).containsEntry("redis", "reachable").containsEntry("watchdog", "running")
                    .containsEntry("leasesLostSinceStart", 0L);
        }
    }
}
