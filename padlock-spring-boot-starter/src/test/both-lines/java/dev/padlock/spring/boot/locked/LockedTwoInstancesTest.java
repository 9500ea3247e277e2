package dev.padlock.spring.boot.locked;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.LockClient;
import dev.padlock.spring.Locked;
import dev.padlock.spring.boot.PadlockAutoConfiguration;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Two application instances (two contexts, each with its own {@link LockClient}) on one Redis,
 * calling the same {@code @Locked} method from several threads each: the critical sections never
 * overlap (a shared count of those inside never passes one) and a read-modify-write of a Redis
 * counter inside them loses no update.
 */
@RedisTest
class LockedTwoInstancesTest {
    private static final int THREADS_PER_INSTANCE = 3;
    private static final int CALLS_PER_THREAD = 15;

    /** Shared by both instances, as a resource both would write. */
    static final AtomicInteger INSIDE = new AtomicInteger();
    static final AtomicInteger MOST_INSIDE = new AtomicInteger();

    /** The bean both instances have: increments a Redis counter by GET then SET. */
    public static class Counter {
        private final RedisAdmin admin;

        Counter(RedisAdmin admin) {
            this.admin = admin;
        }

        @Locked(name = "'counter:' + #p0", waitTime = "60s")
        public void increment(String key) {
            MOST_INSIDE.accumulateAndGet(INSIDE.incrementAndGet(), Math::max);
            try {
                String value = admin.commands().get(key);
                admin.commands().set(key, String.valueOf(value == null ? 1 : Integer.parseInt(value) + 1));
            } finally {
                INSIDE.decrementAndGet();
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class CounterConfiguration {
        @Bean
        Counter counter(RedisAdmin counterRedis) {
            return new Counter(counterRedis);
        }
    }

    @Test
    void twoInstancesNeverOverlapInTheCriticalSection(RedisEndpoint redis, RedisAdmin admin) throws Exception {
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(PadlockAutoConfiguration.class, LockedAutoConfiguration.class))
                .withPropertyValues("padlock.uri=" + redis.uri())
                // each instance's own connection for the counter, closed with its context
                .withBean(RedisAdmin.class, () -> RedisAdmin.connect(redis.uri()))
                .withUserConfiguration(CounterConfiguration.class);
        String key = "count:" + UUID.randomUUID();
        runner.run(first -> runner.run(second -> {
            assertThat(first.getBean(LockClient.class).getId()).isNotEqualTo(second.getBean(LockClient.class).getId());
            List<Counter> instances = List.of(first.getBean(Counter.class), second.getBean(Counter.class));
            ExecutorService pool = Executors.newFixedThreadPool(2 * THREADS_PER_INSTANCE);
            try {
                List<Future<?>> calls = new ArrayList<>();
                for (Counter instance : instances) {
                    for (int t = 0; t < THREADS_PER_INSTANCE; t++) {
                        calls.add(pool.submit(() -> {
                            for (int i = 0; i < CALLS_PER_THREAD; i++) {
                                instance.increment(key);
                            }
                        }));
                    }
                }
                for (Future<?> call : calls) {
                    call.get(5, TimeUnit.MINUTES);
                }
            } finally {
                pool.shutdownNow();
            }
        }));
        assertThat(MOST_INSIDE).as("callers inside the critical section at once").hasValue(1);
        assertThat(admin.commands().get(key)).isEqualTo(String.valueOf(2 * THREADS_PER_INSTANCE * CALLS_PER_THREAD));
        assertThat(admin.commands().exists("counter:" + key)).as("the lock is gone").isZero();
    }
}
