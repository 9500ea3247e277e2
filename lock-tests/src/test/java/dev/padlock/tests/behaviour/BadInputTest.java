package dev.padlock.tests.behaviour;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.LockLease;
import dev.padlock.RFencedLock;
import dev.padlock.RLock;
import dev.padlock.RReadWriteLock;
import dev.padlock.testing.CommandStats;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
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
 * {@code EXISTS} are the only commands allowed in the difference. The client runs without the
 * client registry, whose refresh (a script every 20 s, on the client's timer) would otherwise be
 * counted whenever it fell between two snapshots.
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
        client = clients.open(b -> b.clientRegistry(false)); // only the calls under test reach Redis
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
    void everyKindsFactoryRejectsABadNameBeforeRedis() {
        assertRejectedLocally(NullPointerException.class, "getFairLock(null)", () -> client.getFairLock(null));
        assertRejectedLocally(IllegalArgumentException.class, "getFairLock(\"\")", () -> client.getFairLock(""));
        assertRejectedLocally(NullPointerException.class, "getReadWriteLock(null)", () -> client.getReadWriteLock(null));
        assertRejectedLocally(IllegalArgumentException.class, "getReadWriteLock(\"\")", () -> client.getReadWriteLock(""));
        assertRejectedLocally(NullPointerException.class, "getFencedLock(null)", () -> client.getFencedLock(null));
        assertRejectedLocally(IllegalArgumentException.class, "getFencedLock(\"\")", () -> client.getFencedLock(""));
        assertRejectedLocally(NullPointerException.class, "getSpinLock(null)", () -> client.getSpinLock(null));
        assertRejectedLocally(NullPointerException.class, "getMultiLock(null)", () -> client.getMultiLock((RLock[]) null));
        assertRejectedLocally(NullPointerException.class, "getMultiLock(lock, null)", () -> client.getMultiLock(lock, null));
        assertRejectedLocally(IllegalArgumentException.class, "getMultiLock()", () -> client.getMultiLock());
        assertRejectedLocally(NullPointerException.class, "getRedLock(lock, null)", () -> client.getRedLock(lock, null));
        assertRejectedLocally(IllegalArgumentException.class, "getRedLock()", () -> client.getRedLock());
    }

    @Test
    void everyKindRejectsANullUnitAndANegativeWaitBeforeRedis() {
        String name = Clients.uniqueName("bad-input-kinds");
        RReadWriteLock readWrite = client.getReadWriteLock(name + ":rw");
        RFencedLock fenced = client.getFencedLock(name + ":fenced");
        Map<String, RLock> kinds = new LinkedHashMap<>();
        kinds.put("fair", client.getFairLock(name + ":fair"));
        kinds.put("read", readWrite.readLock());
        kinds.put("write", readWrite.writeLock());
        kinds.put("fenced", fenced);
        kinds.put("spin", client.getSpinLock(name + ":spin"));
        kinds.put("multi", client.getMultiLock(client.getLock(name + ":m1"), client.getLock(name + ":m2")));
        kinds.put("red", client.getRedLock(client.getLock(name + ":r1"), client.getLock(name + ":r2"),
                client.getLock(name + ":r3")));
        kinds.forEach((kind, each) -> {
            assertRejectedLocally(NullPointerException.class, kind + ".lock(10, null)", () -> each.lock(10, null));
            assertRejectedLocally(NullPointerException.class, kind + ".tryLock(1, null)", () -> each.tryLock(1, null));
            assertRejectedLocally(NullPointerException.class, kind + ".tryLockAsync(1, 10, null, id)",
                    () -> each.tryLockAsync(1, 10, null, OWNER));
            assertRejectedLocally(IllegalArgumentException.class, kind + ".tryLock(-1, SECONDS)",
                    () -> each.tryLock(-1, TimeUnit.SECONDS));
            assertRejectedLocally(IllegalArgumentException.class, kind + ".tryLockAsync(-1, 10, SECONDS, id)",
                    () -> each.tryLockAsync(-1, 10, TimeUnit.SECONDS, OWNER));
            assertRejectedLocally(UnsupportedOperationException.class, kind + ".newCondition()", each::newCondition);
        });
        assertRejectedLocally(IllegalArgumentException.class, "tryLockAndGetToken(-1, 10, SECONDS)",
                () -> fenced.tryLockAndGetToken(-1, 10, TimeUnit.SECONDS));
        assertRejectedLocally(NullPointerException.class, "tryLockAndGetTokenAsync(1, 10, null, id)",
                () -> fenced.tryLockAndGetTokenAsync(1, 10, null, OWNER));
        assertRejectedLocally(NullPointerException.class, "lockAndGetTokenAsync(10, null, id)",
                () -> fenced.lockAndGetTokenAsync(10, null, OWNER));
    }

    /**
     * Regression (issue 37): {@code tryLock(0, Long.MAX_VALUE, DAYS)} ran the script, which wrote
     * the owner's field and then failed on Redis's {@code ERR invalid expire time in 'pexpire'}: the
     * caller was told it failed, and the lock stayed held without expiry. Every kind and every API
     * that takes a lease refuses one above {@link RLock#MAX_LEASE} at the call.
     */
    @Test
    void aLeaseTooLargeForRedisFailsAtTheCallAndWritesNothing() {
        String name = Clients.uniqueName("lease-too-large");
        RReadWriteLock readWrite = client.getReadWriteLock(name + ":rw");
        RFencedLock fenced = client.getFencedLock(name + ":fenced");
        Map<String, RLock> kinds = new LinkedHashMap<>();
        kinds.put("plain", client.getLock(name + ":plain"));
        kinds.put("fair", client.getFairLock(name + ":fair"));
        kinds.put("read", readWrite.readLock());
        kinds.put("write", readWrite.writeLock());
        kinds.put("fenced", fenced);
        kinds.put("spin", client.getSpinLock(name + ":spin"));
        kinds.put("multi", client.getMultiLock(client.getLock(name + ":m1"), client.getLock(name + ":m2")));
        kinds.put("red", client.getRedLock(client.getLock(name + ":r1"), client.getLock(name + ":r2"),
                client.getLock(name + ":r3")));
        long justOver = RLock.MAX_LEASE.toMillis() + 1;
        Duration tooLong = RLock.MAX_LEASE.plusMillis(1);
        kinds.forEach((kind, each) -> {
            assertLeaseRefused(kind + ".tryLock(0, Long.MAX_VALUE, DAYS)",
                    () -> each.tryLock(0, Long.MAX_VALUE, TimeUnit.DAYS));
            assertLeaseRefused(kind + ".tryLock(1, MAX_LEASE + 1 ms)",
                    () -> each.tryLock(1, justOver, TimeUnit.MILLISECONDS));
            assertLeaseRefused(kind + ".lock(Long.MAX_VALUE, MILLISECONDS)",
                    () -> each.lock(Long.MAX_VALUE, TimeUnit.MILLISECONDS));
            assertLeaseRefused(kind + ".lockInterruptibly(Long.MAX_VALUE, SECONDS)",
                    () -> each.lockInterruptibly(Long.MAX_VALUE, TimeUnit.SECONDS));
            assertLeaseRefused(kind + ".lockAsync(Long.MAX_VALUE, DAYS, id)",
                    () -> each.lockAsync(Long.MAX_VALUE, TimeUnit.DAYS, OWNER));
            assertLeaseRefused(kind + ".tryLockAsync(0, Long.MAX_VALUE, DAYS, id)",
                    () -> each.tryLockAsync(0, Long.MAX_VALUE, TimeUnit.DAYS, OWNER));
            assertLeaseRefused(kind + ".acquire(too long)", () -> each.acquire(tooLong));
            assertLeaseRefused(kind + ".tryAcquire(0, too long)", () -> each.tryAcquire(Duration.ZERO, tooLong));
            assertLeaseRefused(kind + ".acquireAsync(too long)", () -> each.acquireAsync(tooLong));
            assertLeaseRefused(kind + ".tryAcquireAsync(0, too long)",
                    () -> each.tryAcquireAsync(Duration.ZERO, tooLong));
        });
        assertLeaseRefused("tryLockAndGetToken(0, Long.MAX_VALUE, DAYS)",
                () -> fenced.tryLockAndGetToken(0, Long.MAX_VALUE, TimeUnit.DAYS));
        assertLeaseRefused("lockAndGetToken(Long.MAX_VALUE, DAYS)",
                () -> fenced.lockAndGetToken(Long.MAX_VALUE, TimeUnit.DAYS));
        assertLeaseRefused("lockAndGetTokenAsync(Long.MAX_VALUE, DAYS, id)",
                () -> fenced.lockAndGetTokenAsync(Long.MAX_VALUE, TimeUnit.DAYS, OWNER));
        assertLeaseRefused("tryLockAndGetTokenAsync(0, Long.MAX_VALUE, DAYS, id)",
                () -> fenced.tryLockAndGetTokenAsync(0, Long.MAX_VALUE, TimeUnit.DAYS, OWNER));

        assertThat(admin.commands().keys("*" + name + "*")).as("keys of the refused locks").isEmpty();
    }

    /**
     * Issue 38: a lease is capped as every timeout is ({@code LockConfig.MAX_TIMEOUT}, about 24.8
     * days); a 25-day lease used to be taken (the cap was 100 years). Every kind and API that takes
     * a lease refuses it at the call, and nothing reaches Redis.
     */
    @Test
    void aLeaseOf25DaysAboveTheTimeoutCapFailsAtTheCallAndWritesNothing() {
        String name = Clients.uniqueName("lease-25-days");
        RReadWriteLock readWrite = client.getReadWriteLock(name + ":rw");
        RFencedLock fenced = client.getFencedLock(name + ":fenced");
        Map<String, RLock> kinds = new LinkedHashMap<>();
        kinds.put("plain", client.getLock(name + ":plain"));
        kinds.put("fair", client.getFairLock(name + ":fair"));
        kinds.put("read", readWrite.readLock());
        kinds.put("write", readWrite.writeLock());
        kinds.put("fenced", fenced);
        kinds.put("spin", client.getSpinLock(name + ":spin"));
        kinds.put("multi", client.getMultiLock(client.getLock(name + ":m1"), client.getLock(name + ":m2")));
        kinds.put("red", client.getRedLock(client.getLock(name + ":r1"), client.getLock(name + ":r2"),
                client.getLock(name + ":r3")));
        Duration days25 = Duration.ofDays(25);
        kinds.forEach((kind, each) -> {
            assertLeaseRefused(kind + ".tryLock(0, 25, DAYS)", () -> each.tryLock(0, 25, TimeUnit.DAYS));
            assertLeaseRefused(kind + ".lock(25, DAYS)", () -> each.lock(25, TimeUnit.DAYS));
            assertLeaseRefused(kind + ".lockInterruptibly(25, DAYS)", () -> each.lockInterruptibly(25, TimeUnit.DAYS));
            assertLeaseRefused(kind + ".lockAsync(25, DAYS, id)", () -> each.lockAsync(25, TimeUnit.DAYS, OWNER));
            assertLeaseRefused(kind + ".tryLockAsync(0, 25, DAYS, id)",
                    () -> each.tryLockAsync(0, 25, TimeUnit.DAYS, OWNER));
            assertLeaseRefused(kind + ".acquire(25 days)", () -> each.acquire(days25));
            assertLeaseRefused(kind + ".tryAcquire(0, 25 days)", () -> each.tryAcquire(Duration.ZERO, days25));
            assertLeaseRefused(kind + ".acquireAsync(25 days)", () -> each.acquireAsync(days25));
            assertLeaseRefused(kind + ".tryAcquireAsync(0, 25 days)", () -> each.tryAcquireAsync(Duration.ZERO, days25));
        });
        assertLeaseRefused("lockAndGetToken(25, DAYS)", () -> fenced.lockAndGetToken(25, TimeUnit.DAYS));
        assertLeaseRefused("tryLockAndGetToken(0, 25, DAYS)", () -> fenced.tryLockAndGetToken(0, 25, TimeUnit.DAYS));

        assertThat(admin.commands().keys("*" + name + "*")).as("keys of the refused locks").isEmpty();
    }

    /**
     * Issue 38: a negative lease has two readings, as documented on RLock. {@code lock(-5, SECONDS)}
     * is a watchdog lease (Redisson's reading, kept for code written for it), while
     * {@code acquire(Duration.ofSeconds(-5))} is refused at the call with a message that names
     * {@code Duration.ZERO} for the watchdog.
     */
    @Test
    void aNegativeLeaseIsTheWatchdogsForLockAndRefusedForAcquire() {
        assertRejectedLocally(IllegalArgumentException.class, "acquire(-5 s)",
                () -> lock.acquire(Duration.ofSeconds(-5)));
        assertThatThrownBy(() -> lock.tryAcquire(Duration.ZERO, Duration.ofSeconds(-5)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("was PT-5S; Duration.ZERO asks for the watchdog's lease");

        lock.lock(-5, TimeUnit.SECONDS);
        try {
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            assertThat(admin.commands().pttl(lock.getName())).as("PTTL: the watchdog's lease, 30 s by default")
                    .isBetween(5_001L, LockConfig.DEFAULT_WATCHDOG_TIMEOUT.toMillis());
        } finally {
            lock.unlock();
        }
    }

    @Test
    void aLeaseTooLargeForRedisCannotExtendALease() throws InterruptedException {
        RLock each = client.getLock(Clients.uniqueName("extend-too-large"));
        try (LockLease lease = each.tryAcquire(Duration.ZERO, Duration.ofSeconds(30)).orElseThrow()) {
            long pttl = admin.commands().pttl(each.getName());

            assertLeaseRefused("extend(MAX_LEASE + 1 ms)", () -> lease.extend(RLock.MAX_LEASE.plusMillis(1)));

            assertThat(admin.commands().pttl(each.getName())).as("TTL after the refused extension")
                    .isBetween(1L, pttl);
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

    private void assertLeaseRefused(String call, ThrowingCallable code) {
        Throwable thrown = assertNothingSent(call, code);
        assertThat(thrown).as("%s throws at the call", call).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaseTime must be at most 2147483647 ms (about 24.8 days, RLock.MAX_LEASE)");
    }

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
