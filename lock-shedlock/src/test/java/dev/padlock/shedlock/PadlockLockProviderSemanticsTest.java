package dev.padlock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What the contract says of the provider's keys, beyond ShedLock's suites. */
@RedisTest
class PadlockLockProviderSemanticsTest {
    private static LockClient client;
    private static RedisAdmin admin;

    @BeforeAll
    static void open(RedisEndpoint redis, RedisAdmin redisAdmin) {
        client = LockClient.connect(redis.uri());
        admin = redisAdmin;
    }

    @AfterAll
    static void close() {
        client.close();
    }

    @AfterEach
    void clean() {
        admin.flushAll();
    }

    private static LockConfiguration config(String name, Duration atMost, Duration atLeast) {
        return new LockConfiguration(ClockProvider.now(), name, atMost, atLeast);
    }

    @Test
    void theKeyIsThePrefixAndTheNameWithLockAtMostForAsItsLease() {
        PadlockLockProvider provider = new PadlockLockProvider(client, "jobs:");
        String name = "report-" + UUID.randomUUID();
        SimpleLock lock = provider.lock(config(name, Duration.ofSeconds(30), Duration.ZERO)).orElseThrow();
        assertThat(admin.commands().keys("*")).as("nothing but the job's key (and the client registry's entry)")
                .filteredOn(key -> !key.startsWith("padlock_client:")).containsExactly("jobs:" + name);
        assertThat(admin.commands().pttl("jobs:" + name)).isBetween(25_000L, 30_000L);
        assertThat(admin.commands().get("jobs:" + name)).startsWith(client.getId() + ":");
        lock.unlock();
        assertThat(admin.commands().exists("jobs:" + name)).isZero();
        assertThat(new PadlockLockProvider(client).key("x")).isEqualTo("shedlock:x");
    }

    @Test
    void notReentrantEvenForTheSameThread() {
        PadlockLockProvider provider = new PadlockLockProvider(client);
        Optional<SimpleLock> first = provider.lock(config("job", Duration.ofSeconds(30), Duration.ZERO));
        assertThat(first).isPresent();
        assertThat(provider.lock(config("job", Duration.ofSeconds(30), Duration.ZERO))).isEmpty();
        first.orElseThrow().unlock();
    }

    @Test
    void unlockWithinLockAtLeastForCutsTheLeaseToWhatIsLeftOfIt() {
        PadlockLockProvider provider = new PadlockLockProvider(client);
        SimpleLock lock = provider.lock(config("job", Duration.ofSeconds(60), Duration.ofSeconds(5))).orElseThrow();
        lock.unlock();
        assertThat(admin.commands().pttl("shedlock:job")).isBetween(1L, 5_000L);
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void extendMovesTheHoldToANewTokenSoTheOldHandleIsDeadOnRedisToo() {
        PadlockLockProvider provider = new PadlockLockProvider(client);
        SimpleLock lock = provider.lock(config("job", Duration.ofSeconds(5), Duration.ZERO)).orElseThrow();
        String before = admin.commands().get("shedlock:job");
        SimpleLock extended = lock.extend(Duration.ofSeconds(60), Duration.ZERO).orElseThrow();
        assertThat(admin.commands().get("shedlock:job")).isNotEqualTo(before);
        assertThat(admin.commands().pttl("shedlock:job")).isGreaterThan(50_000L);
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalStateException.class);
        extended.unlock();
        assertThat(admin.commands().exists("shedlock:job")).isZero();
    }

    @Test
    void anExpiredHoldUnlocksNothingOfTheNextHolder() throws InterruptedException {
        PadlockLockProvider provider = new PadlockLockProvider(client);
        SimpleLock stale = provider.lock(config("job", Duration.ofMillis(50), Duration.ZERO)).orElseThrow();
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10))
                .until(() -> admin.commands().exists("shedlock:job") == 0); // its 50 ms ran out
        SimpleLock next = provider.lock(config("job", Duration.ofSeconds(30), Duration.ZERO)).orElseThrow();
        stale.unlock();
        assertThat(admin.commands().exists("shedlock:job")).isOne();
        next.unlock();
    }
}
