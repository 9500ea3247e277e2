package dev.padlock.tests.behaviour;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.LockLease;
import dev.padlock.RLock;
import dev.padlock.spi.LockKeys;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 37, "Never shorter": a re-entry, its release and an extension act on their own hold only;
 * none shortens the TTL another hold of the same owner was promised, in every kind.
 */
@RedisTest
class NeverShorterTest {
    private static final long OUTER_MILLIS = 20_000;
    /** What is surely left of the outer lease when it is read, however slow the machine. */
    private static final long SURELY_LEFT = 10_000;

    @RegisterExtension
    final Clients clients = new Clients();
    private LockClient client;

    @BeforeEach
    void open() {
        client = clients.open();
    }

    static Stream<Arguments> kinds() {
        return Stream.of(
                Arguments.of("lock", (Function<LockClient, RLock>) c -> c.getLock(Clients.uniqueName("short-lock"))),
                Arguments.of("spin", (Function<LockClient, RLock>) c -> c.getSpinLock(Clients.uniqueName("short-spin"))),
                Arguments.of("fenced", (Function<LockClient, RLock>) c -> c.getFencedLock(Clients.uniqueName("short-fenced"))),
                Arguments.of("fair", (Function<LockClient, RLock>) c -> c.getFairLock(Clients.uniqueName("short-fair"))),
                Arguments.of("write", (Function<LockClient, RLock>) c -> c.getReadWriteLock(Clients.uniqueName("short-rw")).writeLock()),
                Arguments.of("read", (Function<LockClient, RLock>) c -> c.getReadWriteLock(Clients.uniqueName("short-rw")).readLock()));
    }

    /**
     * Case 4: a re-entry with a shorter lease than the outer hold's re-armed the lock's TTL to its
     * own (Redisson's re-arm), and its release left it there: the owner believed it had 19 s while
     * another client could take the lock after 1.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void aReentryWithAShorterLeaseDoesNotShortenTheOuterHold(String kind, Function<LockClient, RLock> make,
            RedisAdmin admin) {
        RLock lock = make.apply(client);
        lock.lock(OUTER_MILLIS, TimeUnit.MILLISECONDS);
        lock.lock(1, TimeUnit.SECONDS);
        assertThat(admin.commands().pttl(lock.getName())).as("%s: TTL after the short re-entry", kind)
                .isGreaterThan(SURELY_LEFT);
        lock.unlock();
        assertThat(admin.commands().pttl(lock.getName())).as("%s: TTL after the inner unlock", kind)
                .isGreaterThan(SURELY_LEFT);
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        lock.unlock();
        assertThat(admin.commands().exists(lock.getName())).isZero();
    }

    /**
     * Case 4 with its cancel: a re-entry cancelled while in flight still lands, and its give-back
     * drops the count; neither may leave a shorter TTL than the outer hold's.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void aCancelledReentryDoesNotShortenTheOuterHold(String kind, Function<LockClient, RLock> make,
            RedisAdmin admin) throws Exception {
        RLock lock = make.apply(client);
        long owner = 4242;
        lock.lockAsync(OUTER_MILLIS, TimeUnit.MILLISECONDS, owner).get(10, TimeUnit.SECONDS);
        lock.tryLockAsync(0, 1, TimeUnit.SECONDS, owner).cancel(true);
        lock.lockAsync(1, TimeUnit.SECONDS, owner).get(10, TimeUnit.SECONDS);
        assertThat(admin.commands().pttl(lock.getName())).as("%s: TTL after a cancelled and a short re-entry", kind)
                .isGreaterThan(SURELY_LEFT);
        lock.unlockAsync(owner).get(10, TimeUnit.SECONDS);
        assertThat(admin.commands().pttl(lock.getName())).as("%s: TTL after the inner unlock", kind)
                .isGreaterThan(SURELY_LEFT);
        lock.forceUnlock();
    }

    /**
     * Case 5: a read lease extended to less than it has left set a plain PEXPIRE on its hold's
     * lease key, shortening it on Redis, while {@code safeFor()} kept the old end.
     */
    @Test
    void aReadLeaseExtendedToLessThanItHasKeepsItsTtlAndSafeForStaysBelowRedis(RedisAdmin admin) {
        String name = Clients.uniqueName("short-read-extend");
        RLock read = client.getReadWriteLock(name).readLock();
        try (LockLease lease = read.acquire(Duration.ofSeconds(30))) {
            assertThat(lease.extend(Duration.ofMillis(300))).isTrue();
            String holdKey = LockKeys.readLeaseBase(name) + ":" + client.getId() + ":"
                    + leaseOwner(admin, name) + ":rwlock_timeout:1";
            long holdTtl = admin.commands().pttl(holdKey);
            assertThat(holdTtl).as("the read hold's lease key").isGreaterThan(SURELY_LEFT);
            assertThat(lease.safeFor().toMillis()).as("safeFor() never claims more than Redis has")
                    .isLessThanOrEqualTo(holdTtl + 50);
        }
    }

    /**
     * Model test, seeds 3 and 4: a read hold with a short lease, a re-entry with a long one, and the
     * re-entry's release once the short lease ran out. The release dropped the re-entry's lease key
     * and answered "holds remain": the owner believed it held on (as an exclusive lock's owner
     * would, its TTL raised by the re-entry), but its field had no live lease key left, so the next
     * reader's or writer's call could drop it. The holds that remain keep the longest lease.
     */
    @Test
    void aReadReleaseLeavesTheHoldsThatRemainTheLongestLease(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("short-read-release");
        RLock read = client.getReadWriteLock(name).readLock();
        long owner = 4242;
        String outerKey = LockKeys.readLeasePrefix(name, client.getId() + ":" + owner) + ":1";
        assertThat(read.tryLockAsync(0, 300, TimeUnit.MILLISECONDS, owner).get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(read.tryLockAsync(0, OUTER_MILLIS, TimeUnit.MILLISECONDS, owner).get(10, TimeUnit.SECONDS))
                .isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> admin.commands().pttl(outerKey) == -2);

        read.unlockAsync(owner).get(10, TimeUnit.SECONDS);

        assertThat(read.getHoldCountAsync(owner).get(10, TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(admin.commands().pttl(outerKey)).as("the hold that remains keeps the re-entry's lease")
                .isGreaterThan(SURELY_LEFT);
        assertThat(admin.commands().pttl(name)).isGreaterThan(SURELY_LEFT);
        read.unlockAsync(owner).get(10, TimeUnit.SECONDS);
        assertThat(admin.commands().exists(name)).isZero();
    }

    /** Every kind: an extension to less than is left never shortens it. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void anExtensionToLessThanIsLeftDoesNotShortenTheLease(String kind, Function<LockClient, RLock> make,
            RedisAdmin admin) {
        RLock lock = make.apply(client);
        try (LockLease lease = lock.acquire(Duration.ofMillis(OUTER_MILLIS))) {
            assertThat(lease.extend(Duration.ofMillis(300))).isTrue();
            assertThat(admin.commands().pttl(lock.getName())).as(kind).isGreaterThan(SURELY_LEFT);
            assertThat(lease.safeFor().toMillis()).as(kind).isGreaterThan(SURELY_LEFT);
        }
    }

    /** The long of the one reader field of {@code name}: a lease's owner id. */
    private static String leaseOwner(RedisAdmin admin, String name) {
        return admin.commands().hkeys(name).stream().filter(field -> !field.equals("mode"))
                .map(field -> field.substring(field.lastIndexOf(':') + 1)).findFirst().orElseThrow();
    }
}
