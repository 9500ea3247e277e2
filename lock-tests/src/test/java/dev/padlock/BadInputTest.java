package dev.padlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.padlock.testing.CommandStats;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.RedisTest;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bad arguments fail at the call with the contract's exception, and nothing reaches Redis.
 *
 * <p>"Nothing reaches Redis" is read from {@code INFO commandstats} before and after each call.
 * Between the call and the second snapshot the client's own command connection runs one
 * {@code EXISTS} (an {@code isLocked()}): Redis serves one connection in order, so anything the
 * rejected call had sent on it is counted by then. The admin's {@code INFO} and that
 * {@code EXISTS} are the only commands allowed in the difference.
 */
@RedisTest
class BadInputTest {
    private static final long OWNER = 42;

    @RegisterExtension
    final Clients clients = new Clients();
    private LockClient client;
    private RedisAdmin admin;
    private RLock lock;
    private RLock fence;

    @BeforeEach
    void open(RedisEndpoint redis, RedisAdmin admin) {
        this.admin = admin;
        client = clients.open();
        lock = client.getLock(Clients.uniqueName("bad-input"));
        fence = client.getLock(Clients.uniqueName("bad-input-fence"));
        fence.isLocked(); // the connection is up and warm before the first snapshot
    }

    @Test
    void aNullNameIsNpeAndAnEmptyNameIaeAtGetLock() {
        assertRejectedLocally(NullPointerException.class, "getLock(null)", () -> client.getLock(null));
        assertRejectedLocally(IllegalArgumentException.class, "getLock(\"\")", () -> client.getLock(""));
    }

    @ParameterizedTest(name = "lease {0}")
    @ValueSource(longs = {-1, 0, 10})
    void aNullUnitIsNpeWhateverTheLease(long lease) {
        assertRejectedLocally(NullPointerException.class, "lock(" + lease + ", null)",
                () -> lock.lock(lease, null));
        assertRejectedLocally(NullPointerException.class, "lockInterruptibly(" + lease + ", null)",
                () -> lock.lockInterruptibly(lease, null));
        assertRejectedLocally(NullPointerException.class, "tryLock(0, " + lease + ", null)",
                () -> lock.tryLock(0, lease, null));
        assertRejectedLocally(NullPointerException.class, "tryLock(1, " + lease + ", null)",
                () -> lock.tryLock(1, lease, null));
        assertRejectedLocally(NullPointerException.class, "lockAsync(" + lease + ", null, id)",
                () -> lock.lockAsync(lease, null, OWNER));
        assertRejectedLocally(NullPointerException.class, "tryLockAsync(0, " + lease + ", null, id)",
                () -> lock.tryLockAsync(0, lease, null, OWNER));
        assertRejectedLocally(NullPointerException.class, "tryLockAsync(1, " + lease + ", null, id)",
                () -> lock.tryLockAsync(1, lease, null, OWNER));
    }

    @Test
    void aNullUnitIsNpeForTheMethodsWithoutLease() {
        assertRejectedLocally(NullPointerException.class, "tryLock(0, null)", () -> lock.tryLock(0, null));
        assertRejectedLocally(NullPointerException.class, "tryLock(1, null)", () -> lock.tryLock(1, null));
    }

    @ParameterizedTest(name = "wait {0}")
    @ValueSource(longs = {-1, Long.MIN_VALUE})
    void aNegativeWaitIsIae(long wait) {
        assertRejectedLocally(IllegalArgumentException.class, "tryLock(" + wait + ", SECONDS)",
                () -> lock.tryLock(wait, TimeUnit.SECONDS));
        assertRejectedLocally(IllegalArgumentException.class, "tryLock(" + wait + ", 10, SECONDS)",
                () -> lock.tryLock(wait, 10, TimeUnit.SECONDS));
        assertRejectedLocally(IllegalArgumentException.class, "tryLock(" + wait + ", -1, SECONDS)",
                () -> lock.tryLock(wait, -1, TimeUnit.SECONDS));
        assertRejectedLocally(IllegalArgumentException.class, "tryLockAsync(" + wait + ", 10, SECONDS, id)",
                () -> lock.tryLockAsync(wait, 10, TimeUnit.SECONDS, OWNER));
        assertRejectedLocally(IllegalArgumentException.class, "tryLockAsync(" + wait + ", -1, SECONDS, id)",
                () -> lock.tryLockAsync(wait, -1, TimeUnit.SECONDS, OWNER));
    }

    @Test
    void aNegativeWaitWithANullUnitIsRejectedOneWayOrTheOther() {
        // The contract does not order the two checks; either exception is fine, Redis is not.
        for (ThrowingCallable call : new ThrowingCallable[] {
                () -> lock.tryLock(-1, null),
                () -> lock.tryLock(-1, 10, null),
                () -> lock.tryLockAsync(-1, 10, null, OWNER)}) {
            Throwable thrown = assertNothingSent("tryLock(-1, .., null)", call);
            assertThat(thrown).isInstanceOfAny(NullPointerException.class, IllegalArgumentException.class);
        }
    }

    @Test
    void newConditionIsUnsupported() {
        assertRejectedLocally(UnsupportedOperationException.class, "newCondition()", () -> lock.newCondition());
    }

    @Test
    void aRejectedCallLeavesTheLockUsable() throws InterruptedException {
        assertRejectedLocally(NullPointerException.class, "lock(-1, null)", () -> lock.lock(-1, null));
        assertRejectedLocally(IllegalArgumentException.class, "tryLock(-1, SECONDS)",
                () -> lock.tryLock(-1, TimeUnit.SECONDS));

        assertThat(lock.isLocked()).isFalse();
        assertThat(lock.tryLock(0, 10, TimeUnit.SECONDS)).isTrue();
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
    }

    // ---- LockConfig

    @Test
    void bothRedisUriAndClusterUrisFailAtBuild() {
        LockConfig.Builder builder = LockConfig.builder()
                .redisUri("redis://127.0.0.1:1")
                .clusterUris("redis://127.0.0.1:2", "redis://127.0.0.1:3");

        assertThatThrownBy(builder::build).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void neitherRedisUriNorClusterUrisFailsAtBuild() {
        LockConfig.Builder builder = LockConfig.builder();

        assertThatThrownBy(builder::build).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void invalidDurationsAreIae() {
        assertThatThrownBy(() -> LockConfig.builder().watchdogTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LockConfig.builder().watchdogTimeout(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LockConfig.builder().watchdogTimeout(Duration.ofMillis(29)))
                .as("below the documented 30 ms minimum")
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LockConfig.builder().commandTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LockConfig.builder().commandTimeout(Duration.ofMillis(-500)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void validBoundaryDurationsAreAccepted() {
        LockConfig config = LockConfig.builder()
                .redisUri("redis://127.0.0.1:1")
                .watchdogTimeout(Duration.ofMillis(30))
                .commandTimeout(Duration.ofMillis(1))
                .build();

        assertThat(config.watchdogTimeout()).isEqualTo(Duration.ofMillis(30));
        assertThat(config.commandTimeout()).isEqualTo(Duration.ofMillis(1));
    }

    @Test
    void nullAndBlankSettingsAreRejected() {
        assertThatThrownBy(() -> LockConfig.builder().watchdogTimeout(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> LockConfig.builder().commandTimeout(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> LockConfig.builder().redisUri(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> LockConfig.builder().redisUri(" ")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LockConfig.builder().clusterUris()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LockConfig.builder().clusterUris("redis://127.0.0.1:1", null))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> LockClient.connect(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> LockClient.create(null)).isInstanceOf(NullPointerException.class);
    }

    // ---- helpers

    private void assertRejectedLocally(Class<? extends Throwable> expected, String call, ThrowingCallable code) {
        Throwable thrown = assertNothingSent(call, code);
        assertThat(thrown).as("%s throws at the call", call).isInstanceOf(expected);
    }

    /** Runs {@code code}, asserts it sent no command to Redis, and returns what it threw. */
    private Throwable assertNothingSent(String call, ThrowingCallable code) {
        CommandStats before = admin.commandStats();
        Throwable thrown = catchThrowable(code);
        assertThat(fence.isLocked()).isFalse(); // one EXISTS: orders the client's connection
        CommandStats sent = CommandStats.delta(before, admin.commandStats())
                .minus("info", 1)
                .minus("exists", 1);
        assertThat(sent.asMap()).as("commands that %s sent to Redis", call).isEmpty();
        assertThat(Thread.currentThread().isInterrupted()).as("interrupt flag after %s", call).isFalse();
        return thrown;
    }
}
