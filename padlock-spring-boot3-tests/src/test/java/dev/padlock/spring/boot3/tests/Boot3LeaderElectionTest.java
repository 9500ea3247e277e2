package dev.padlock.spring.boot3.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.spring.boot.PadlockAutoConfiguration;
import dev.padlock.spring.boot.boot3.PadlockBoot3HealthAutoConfiguration;
import dev.padlock.spring.integration6.PadlockLockRegistry6;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Spring Integration 6.5's {@link LockRegistryLeaderInitiator} on the registry the starter
 * configures on Boot 3.5 ({@link PadlockLockRegistry6}), in two application contexts on one
 * Redis: one leader, the same one over many heartbeats, and the other takes over when the
 * leader's context closes.
 */
@RedisTest
class Boot3LeaderElectionTest {
    private static final long HEART_BEAT_MILLIS = 200;

    /** An application's leader election, on whatever lock registry the context has. */
    @Configuration(proxyBeanMethods = false)
    static class Election {
        @Bean
        LockRegistryLeaderInitiator leaderInitiator(LockRegistry registry, @Value("${instance}") String instance) {
            LockRegistryLeaderInitiator initiator =
                    new LockRegistryLeaderInitiator(registry, new DefaultCandidate(instance, "election"));
            initiator.setHeartBeatMillis(HEART_BEAT_MILLIS);
            initiator.setBusyWaitMillis(HEART_BEAT_MILLIS / 4);
            return initiator;
        }
    }

    @Test
    void oneLeaderAmongTwoContextsAndTheOtherTakesOverWhenItsContextCloses(RedisEndpoint redis, RedisAdmin admin) {
        String registryKey = "boot3-election-" + UUID.randomUUID();
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(PadlockAutoConfiguration.class,
                        PadlockBoot3HealthAutoConfiguration.class))
                .withUserConfiguration(Election.class)
                .withPropertyValues("padlock.uri=" + redis.uri(), "padlock.integration.registry-key=" + registryKey);
        runner.withPropertyValues("instance=a").run(a -> runner.withPropertyValues("instance=b").run(b -> {
            assertThat(a).hasSingleBean(PadlockLockRegistry6.class);
            LockRegistryLeaderInitiator first = a.getBean(LockRegistryLeaderInitiator.class);
            LockRegistryLeaderInitiator second = b.getBean(LockRegistryLeaderInitiator.class);
            await().atMost(Duration.ofSeconds(20)).until(() -> leaders(first, second) == 1);
            boolean firstLeads = first.getContext().isLeader();
            await().during(Duration.ofMillis(5 * HEART_BEAT_MILLIS)).atMost(Duration.ofSeconds(20))
                    .until(() -> leaders(first, second) == 1 && first.getContext().isLeader() == firstLeads);
            assertThat(admin.commands().exists(registryKey + ":election")).as("the leader's lock").isOne();

            AssertableApplicationContext leaderContext = firstLeads ? a : b;
            LockRegistryLeaderInitiator follower = firstLeads ? second : first;
            long closed = System.nanoTime();
            leaderContext.close();
            await().atMost(Duration.ofSeconds(10)).until(() -> follower.getContext().isLeader());
            System.out.printf("Boot 3.5, Spring Integration 6.5: leader take-over after context close: %d ms%n",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closed));
        }));
        assertThat(admin.commands().exists(registryKey + ":election")).as("released at close").isZero();
    }

    private static int leaders(LockRegistryLeaderInitiator first, LockRegistryLeaderInitiator second) {
        return (first.getContext().isLeader() ? 1 : 0) + (second.getContext().isLeader() ? 1 : 0);
    }
}
