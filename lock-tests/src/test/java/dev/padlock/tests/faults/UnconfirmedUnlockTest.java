package dev.padlock.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.RedisUnavailableException;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisServerProcess;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 37, case 2: an unconfirmed unlock plus the next lock made a hold that never ended. The
 * fair, read or write lock's unlock failed unconfirmed, and the same thread's next lock added to
 * what that unlock left (Redis 2, the owner believing 1): the next unlock answered "holds remain"
 * and nobody else got the lock while the leftover lived (for ever, with a watchdog lease).
 */
@RedisTest(controllable = true)
@Tag("faults")
class UnconfirmedUnlockTest {
    @RegisterExtension
    final Clients clients = new Clients();

    private final OwnerThread owner = new OwnerThread();

    @AfterEach
    void tearDown(RedisServerProcess server) throws Exception {
        if (server.isPaused()) {
            server.resume();
        }
        owner.close();
    }

    /** The kind, its lock of a name, and the owner field of thread {@code t} of the client. */
    static Stream<Arguments> kinds() {
        return Stream.of(
                Arguments.of("fair", (BiFunction<LockClient, String, RLock>) LockClient::getFairLock, ""),
                Arguments.of("write", (BiFunction<LockClient, String, RLock>) (c, n) -> c.getReadWriteLock(n).writeLock(),
                        ":write"),
                Arguments.of("read", (BiFunction<LockClient, String, RLock>) (c, n) -> c.getReadWriteLock(n).readLock(),
                        ""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void aLockAfterAnUnconfirmedUnlockStartsANewHoldCount(String kind, BiFunction<LockClient, String, RLock> make,
            String fieldSuffix, RedisServerProcess server, RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("unconfirmed-" + kind);
        LockClient client = clients.open(b -> b.commandTimeout(Duration.ofMillis(500)));
        RLock lock = make.apply(client, name);
        String field = client.getId() + ":" + owner.call(() -> Thread.currentThread().getId()) + fieldSuffix;

        owner.call(() -> {
            lock.lock(60, TimeUnit.SECONDS);
            return null;
        });
        Object outcome = owner.unlockThatDoesNotLand(lock, server, admin);
        assertThat(outcome).as("the unlock could not be confirmed").isInstanceOf(RedisUnavailableException.class);
        assertThat(admin.commands().hget(name, field)).as("what the unconfirmed unlock left").isEqualTo("1");

        owner.call(() -> {
            lock.lock(60, TimeUnit.SECONDS);
            return null;
        });
        assertThat(admin.commands().hget(name, field)).as("the next lock holds once, not on top of the leftover")
                .isEqualTo("1");
        owner.call(() -> {
            lock.unlock();
            return null;
        });
        assertThat(admin.commands().exists(name)).as("its unlock frees the lock").isZero();
    }

    /** Every kind the engine counts holds of, the plain lock too. */
    static Stream<Arguments> allKinds() {
        return Stream.concat(Stream.of(
                Arguments.of("plain", (BiFunction<LockClient, String, RLock>) LockClient::getLock, "")), kinds());
    }

    /**
     * Simulator seed 4: an unlock of one hold of two could not be confirmed, and the owner's holds
     * were all forgotten, so its next lock merged with the hold it kept (Redis 1, the owner
     * believing 2). The other hold stays; the one in doubt is given back once Redis answers.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("allKinds")
    void anUnconfirmedUnlockOfOneOfTwoHoldsKeepsTheOtherAndTheNextLockCountsOnTopOfIt(String kind,
            BiFunction<LockClient, String, RLock> make, String fieldSuffix, RedisServerProcess server, RedisAdmin admin)
            throws Exception {
        String name = Clients.uniqueName("unconfirmed-inner-" + kind);
        LockClient client = clients.open(b -> b.commandTimeout(Duration.ofMillis(500)));
        RLock lock = make.apply(client, name);
        String field = client.getId() + ":" + owner.call(() -> Thread.currentThread().getId()) + fieldSuffix;
        owner.call(() -> {
            lock.lock(60, TimeUnit.SECONDS);
            lock.lock(60, TimeUnit.SECONDS);
            return null;
        });
        Object outcome = owner.unlockThatDoesNotLand(lock, server, admin);
        assertThat(outcome).as("the unlock could not be confirmed").isInstanceOf(RedisUnavailableException.class);

        owner.call(() -> {
            lock.lock(60, TimeUnit.SECONDS);
            return null;
        });
        assertThat(admin.commands().hget(name, field)).as("the hold kept and the new one").isEqualTo("2");
        assertThat(owner.call(() -> lock.getHoldCount())).isEqualTo(2);
        owner.call(() -> {
            lock.unlock();
            lock.unlock();
            return null;
        });
        assertThat(admin.commands().exists(name)).as("its two unlocks free the lock").isZero();
    }
}
