package dev.padlock.spring.integration6;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.integration.leader.AbstractCandidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * Spring Integration 6.5's own {@link LockRegistryLeaderInitiator} on {@link PadlockLockRegistry6}:
 * one leader at a time over many heartbeats, and the other takes over when the leader's context
 * closes.
 */
@RedisTest
class LeaderElection6Test {
    private static final long HEART_BEAT_MILLIS = 200;
    private static final long BUSY_WAIT_MILLIS = 50;

    private final AtomicInteger leaders = new AtomicInteger();
    private final AtomicInteger mostLeaders = new AtomicInteger();

    /** One application: a LockClient (closed with the context), the registry, the initiator. */
    private AnnotationConfigApplicationContext application(RedisEndpoint redis, String registryKey, Candidate candidate) {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        // declared dependencies, so the context closes initiator, registry, client in that order
        context.registerBean("lockClient", LockClient.class, () -> LockClient.connect(redis.uri()));
        context.registerBean("lockRegistry", PadlockLockRegistry6.class,
                () -> new PadlockLockRegistry6(context.getBean(LockClient.class), registryKey),
                definition -> definition.setDependsOn("lockClient"));
        context.registerBean("leaderInitiator", LockRegistryLeaderInitiator.class, () -> {
            LockRegistryLeaderInitiator initiator =
                    new LockRegistryLeaderInitiator(context.getBean(PadlockLockRegistry6.class), candidate);
            initiator.setHeartBeatMillis(HEART_BEAT_MILLIS);
            initiator.setBusyWaitMillis(BUSY_WAIT_MILLIS);
            return initiator;
        }, definition -> definition.setDependsOn("lockRegistry"));
        context.refresh();
        return context;
    }

    @Test
    void oneLeaderAtATimeAndTheOtherTakesOverWhenTheLeadersContextCloses(RedisEndpoint redis) {
        String registryKey = "leaders6-" + UUID.randomUUID();
        Candidate first = new Candidate("first");
        Candidate second = new Candidate("second");
        AnnotationConfigApplicationContext one = application(redis, registryKey, first);
        AnnotationConfigApplicationContext two = application(redis, registryKey, second);
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> first.leader || second.leader);
            // several heartbeats: the leader keeps leading, the other keeps waiting
            await().during(Duration.ofMillis(5 * HEART_BEAT_MILLIS)).atMost(Duration.ofSeconds(10))
                    .until(() -> first.leader ^ second.leader);
            assertThat(mostLeaders).as("never two leaders while both run").hasValue(1);
            Candidate leader = first.leader ? first : second;
            Candidate follower = leader == first ? second : first;
            long closed = System.nanoTime();
            (leader == first ? one : two).close();
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5)).until(() -> follower.leader);
            long takeOverMillis = TimeUnit.NANOSECONDS.toMillis(follower.grantedAtNanos - closed);
            System.out.printf("Spring Integration 6.5: leader take-over after context close: %d ms%n", takeOverMillis);
            // a heartbeat or so when it works; the bound, generous for a loaded machine, stays well under
            // the 30 s watchdog lease a lock left behind by the close would hold
            assertThat(takeOverMillis).as("woken by the unlock, not by the lease running out").isLessThan(10_000);
        } finally {
            one.close();
            two.close();
        }
    }

    /** Counts the leaders across candidates and records the most seen at once. */
    private final class Candidate extends AbstractCandidate {
        volatile boolean leader;
        volatile long grantedAtNanos;

        Candidate(String id) {
            super(id, "role");
        }

        @Override
        public void onGranted(Context context) {
            grantedAtNanos = System.nanoTime();
            leader = true;
            mostLeaders.accumulateAndGet(leaders.incrementAndGet(), Math::max);
        }

        @Override
        public void onRevoked(Context context) {
            if (leader) {
                leader = false;
                leaders.decrementAndGet();
            }
        }
    }
}
