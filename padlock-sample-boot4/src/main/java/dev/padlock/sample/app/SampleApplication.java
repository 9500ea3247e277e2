package dev.padlock.sample.app;

import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * A small Spring Boot application (Boot 4 or 3.5: see package-info) on Padlock's starter, meant to run as several instances on one
 * Redis ({@code padlock.uri}): a {@link Counter} updated under a Padlock lock, a {@link Report} job
 * that ShedLock runs on one instance at a time, one leader among the instances (Spring
 * Integration's {@link LockRegistryLeaderInitiator} on the starter's lock registry), and the
 * Actuator health endpoint, whose {@code padlock} component says whether Redis answers.
 */
@SpringBootApplication
@EnableScheduling
@EnableSchedulerLock(defaultLockAtMostFor = "PT30S")
public class SampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(SampleApplication.class, args);
    }

    /** The application's own data, on the Redis the locks use. */
    @Bean(destroyMethod = "close")
    SampleData sampleData(@Value("${padlock.uri}") String uri) {
        return new SampleData(uri);
    }

    /**
     * One leader among the instances: the lock {@code padlock:sample-leader} of the auto-configured
     * registry. The raw type compiles on both lines: {@code LockRegistry} is generic from Spring
     * Integration 7, not in 6.5.
     */
    @Bean
    @SuppressWarnings({"rawtypes", "unchecked"})
    LockRegistryLeaderInitiator leaderInitiator(LockRegistry registry, @Value("${sample.instance}") String instance,
            @Value("${sample.leader.heartbeat-millis}") long heartbeatMillis) {
        LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry, new Leader(instance));
        initiator.setHeartBeatMillis(heartbeatMillis);
        initiator.setBusyWaitMillis(Math.max(10, heartbeatMillis / 4));
        return initiator;
    }
}
