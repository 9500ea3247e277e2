package dev.padlock.tests.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RLock;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisServerProcess;
import dev.padlock.testing.junit.RedisTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An ACL user without channel rights ({@code resetchannels}, no {@code &} pattern: every PUBLISH
 * and SUBSCRIBE refused with NOPERM) unlocks and force-unlocks every kind of lock with success
 * while waiters wait, in its own client and in another: a refused unlock message fails no call
 * whose writes landed. Its own waiters poll; the other client's waiter is not woken by the
 * refused message and gets the lock when the park it began runs out (the lease it saw, or its
 * look interval in line).
 */
@RedisTest(controllable = true)
class AclWithoutChannelsTest {
    private static final String PASSWORD = "padlock-secret";
    private static final String USER = "no-channels";
    /** What a whole scenario is given: catches a hang, not a slow machine. */
    private static final Duration BOUND = Duration.ofSeconds(60);
    /** Short leases: a waiter nobody wakes gets the lock when the lease it saw runs out. */
    private static final long LEASE_MS = 2_000;
    private static final long WAIT_MS = 20_000;

    private RedisAdmin admin;
    private String plainUri;

    /**
     * A lock kind: the lock the holder takes, the lock its client's waiter asks for, and the other
     * client's (a spin lock's waiters poll: a plain waiter on the same hash listens, so that the
     * spin lock's release has somebody to wake).
     */
    enum Kind {
        PLAIN(LockClient::getLock, LockClient::getLock, LockClient::getLock),
        SPIN(LockClient::getSpinLock, LockClient::getSpinLock, LockClient::getLock),
        FENCED(LockClient::getFencedLock, LockClient::getFencedLock, LockClient::getFencedLock),
        FAIR(LockClient::getFairLock, LockClient::getFairLock, LockClient::getFairLock),
        READ(Kind::readLock, Kind::writeLock, Kind::writeLock),
        WRITE(Kind::writeLock, Kind::readLock, Kind::readLock);

        final BiFunction<LockClient, String, RLock> holder;
        final BiFunction<LockClient, String, RLock> waiterHere;
        final BiFunction<LockClient, String, RLock> waiterElsewhere;

        Kind(BiFunction<LockClient, String, RLock> holder, BiFunction<LockClient, String, RLock> waiterHere,
                BiFunction<LockClient, String, RLock> waiterElsewhere) {
            this.holder = holder;
            this.waiterHere = waiterHere;
            this.waiterElsewhere = waiterElsewhere;
        }

        private static RLock readLock(LockClient client, String name) {
            return client.getReadWriteLock(name).readLock();
        }

        private static RLock writeLock(LockClient client, String name) {
            return client.getReadWriteLock(name).writeLock();
        }
    }

    @BeforeEach
    void open(RedisServerProcess server, RedisAdmin admin) {
        this.admin = admin;
        this.plainUri = server.uri();
        PadlockAcl.setUser(admin, USER, PASSWORD, PadlockAcl.rule("orders:").replaceAll("&\\S+", ""));
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void anUnlockWithWaitersHereAndElsewhereSucceeds(Kind kind) {
        String name = "orders:" + UUID.randomUUID();
        assertTimeoutPreemptively(BOUND, () -> {
            try (LockClient here = connect(); LockClient elsewhere = LockClient.connect(plainUri)) {
                RLock held = kind.holder.apply(here, name);
                List<Waiter> waiters = wait(kind, name, here, elsewhere, held);
                held.unlockAsync(1L).get(5, TimeUnit.SECONDS);
                takeInTurn(waiters);
            }
        });
        assertThat(admin.commands().exists(name)).as("the lock key").isZero();
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aForceUnlockWithWaitersHereAndElsewhereSucceeds(Kind kind) {
        String name = "orders:" + UUID.randomUUID();
        assertTimeoutPreemptively(BOUND, () -> {
            try (LockClient here = connect(); LockClient elsewhere = LockClient.connect(plainUri)) {
                RLock held = kind.holder.apply(here, name);
                List<Waiter> waiters = wait(kind, name, here, elsewhere, held);
                assertThat(held.forceUnlockAsync().get(5, TimeUnit.SECONDS)).as("it was held").isTrue();
                takeInTurn(waiters);
                assertThat(held.forceUnlockAsync().get(5, TimeUnit.SECONDS)).as("free by now").isFalse();
            }
        });
        assertThat(admin.commands().exists(name)).as("the lock key").isZero();
    }

    /**
     * {@code held} (owner 1 of the user's client) takes the lock; then owner 2 of the same client
     * and owner 3 of {@code elsewhere} (a user with every right) wait for it.
     */
    private List<Waiter> wait(Kind kind, String name, LockClient here, LockClient elsewhere, RLock held)
            throws Exception {
        assertThat(held.tryLockAsync(0, LEASE_MS, TimeUnit.MILLISECONDS, 1L).get(5, TimeUnit.SECONDS)).isTrue();
        Waiter mine = new Waiter(kind.waiterHere.apply(here, name), 2L);
        Waiter other = new Waiter(kind.waiterElsewhere.apply(elsewhere, name), 3L);
        // the holder's lease keeps both out (a state, not a race), and the other client listens by then
        await().atMost(Duration.ofSeconds(5)).until(() -> !admin.commands().pubsubChannels("*" + name + "*").isEmpty());
        assertThat(mine.acquired.isDone()).as("owner 2 waits").isFalse();
        assertThat(other.acquired.isDone()).as("owner 3 waits").isFalse();
        return List.of(mine, other);
    }

    /** Each waiter gets the lock, in whatever order, and unlocks it with success. */
    private static void takeInTurn(List<Waiter> waiters) throws Exception {
        List<Waiter> left = new ArrayList<>(waiters);
        while (!left.isEmpty()) {
            CompletableFuture.anyOf(left.stream().map(w -> w.acquired).toArray(CompletableFuture[]::new))
                    .get(WAIT_MS, TimeUnit.MILLISECONDS);
            for (Waiter waiter : List.copyOf(left)) {
                if (waiter.acquired.isDone()) {
                    assertThat(waiter.acquired.get()).as(waiter.lock.getName() + " owner " + waiter.owner).isTrue();
                    waiter.lock.unlockAsync(waiter.owner).get(5, TimeUnit.SECONDS);
                    left.remove(waiter);
                }
            }
        }
    }

    private LockClient connect() {
        return LockClient.create(LockConfig.builder()
                .redisUri(PadlockAcl.withUser(plainUri, USER, PASSWORD))
                .commandTimeout(Duration.ofSeconds(3))
                .build());
    }

    /** Owner {@code owner} waiting for {@code lock}, with a short lease. */
    private static final class Waiter {
        final RLock lock;
        final long owner;
        final CompletableFuture<Boolean> acquired;

        Waiter(RLock lock, long owner) {
            this.lock = lock;
            this.owner = owner;
            this.acquired = lock.tryLockAsync(WAIT_MS, LEASE_MS, TimeUnit.MILLISECONDS, owner);
        }
    }
}
