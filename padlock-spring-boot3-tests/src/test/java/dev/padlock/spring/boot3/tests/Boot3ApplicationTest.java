package dev.padlock.spring.boot3.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.micrometer.PadlockObservations;
import dev.padlock.spring.integration6.PadlockLockRegistry6;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.locks.Lock;
import net.javacrumbs.shedlock.core.LockAssert;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthEndpoint;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * One real Spring Boot 3.5 application (auto-configuration, Actuator, Micrometer, Spring
 * Integration 6.5, ShedLock's {@code @SchedulerLock}) on a real Redis: a lock through each bean,
 * the meters and observations they left in Boot's registries (the observations were silently
 * absent on Boot 3 before: the starter ran before Boot 3's observation auto-configuration), and the
 * health endpoint's {@code padlock} component.
 */
@RedisTest
class Boot3ApplicationTest {

    /** The application: auto-configuration, and a job under ShedLock. */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @EnableSchedulerLock(defaultLockAtMostFor = "PT1M")
    static class Application {
        @Bean
        Job job(RedisAdmin admin) {
            return new Job(admin);
        }
    }

    /** A ShedLock job, called directly here (as ShedLock locks direct calls too). */
    public static class Job {
        private final RedisAdmin admin;
        private volatile long keysWhileRunning = -1;

        Job(RedisAdmin admin) {
            this.admin = admin;
        }

        @SchedulerLock(name = "boot3-job")
        public void run() {
            LockAssert.assertLocked();
            keysWhileRunning = admin.commands().exists("shedlock:boot3-job");
        }

        /** Through the proxy to the job itself (a field read would see the proxy's own). */
        public long keysWhileRunning() {
            return keysWhileRunning;
        }
    }

    @Test
    void aLockThroughEachBeanThenTheMetersObservationsAndTheHealthEndpoint(RedisEndpoint redis, RedisAdmin admin) {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
                .web(WebApplicationType.NONE)
                .initializers(c -> c.getBeanFactory().registerSingleton("redisAdmin", admin))
                .properties("management.endpoint.health.show-details=always")
                .run("--padlock.uri=" + redis.uri(), "--padlock.watchdog-timeout=3s")) {
            String id = UUID.randomUUID().toString();

            RLock rlock = context.getBean(LockClient.class).getLock("orders:" + id);
            rlock.lock();
            assertThat(admin.commands().exists("orders:" + id)).isOne();
            rlock.unlock();

            Lock registryLock = context.getBean(PadlockLockRegistry6.class).obtain(id);
            assertThat(registryLock.tryLock()).isTrue();
            assertThat(admin.commands().exists("padlock:" + id)).isOne();
            registryLock.unlock();

            LockProvider provider = context.getBean(LockProvider.class);
            provider.lock(new LockConfiguration(Instant.now(), "report-" + id, Duration.ofMinutes(1), Duration.ZERO))
                    .orElseThrow().unlock();
            Job job = context.getBean(Job.class);
            job.run();
            assertThat(job.keysWhileRunning()).as("@SchedulerLock held shedlock:boot3-job while it ran").isOne();
            assertThat(admin.commands().exists("shedlock:boot3-job")).isZero();

            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(meters.get("padlock.lock.acquire").tags("kind", "lock", "outcome", "acquired").timer().count())
                    .isEqualTo(2);
            assertThat(meters.get("padlock.lock.held").tag("kind", "lock").timer().count()).isEqualTo(2);
            assertThat(context.getBeansOfType(PadlockObservations.class)).hasSize(1);
            assertThat(meters.get(PadlockObservations.ACQUISITION).timer().count())
                    .as("observations reach Boot 3's meter handler").isEqualTo(2);

            HealthEndpoint health = context.getBean(HealthEndpoint.class);
            Health padlock = (Health) health.healthForPath("padlock");
            assertThat(padlock.getStatus()).isEqualTo(Status.UP);
            assertThat(padlock.getDetails()).containsEntry("redis", "reachable").containsEntry("watchdog", "running")
                    .containsEntry("leasesLostSinceStart", 0L);
        }
    }
}
