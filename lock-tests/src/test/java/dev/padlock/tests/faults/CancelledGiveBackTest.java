package dev.padlock.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.testing.RedisServerProcess;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 37, case 3: the give-back of a cancelled acquisition removed the same owner's next hold.
 * Redis stalled while owner T acquired; the caller cancelled and acquired again as T at once. The
 * second acquisition went out behind the first, and the first's late "acquired" sent a release
 * that landed after the new hold and removed it: T was told it held, Redis had nothing.
 */
@RedisTest(controllable = true)
@Tag("faults")
class CancelledGiveBackTest {
    private static final long OWNER = 737;

    @RegisterExtension
    final Clients clients = new Clients();

    @AfterEach
    void resume(RedisServerProcess server) {
        if (server.isPaused()) {
            server.resume();
        }
    }

    static Stream<Arguments> kinds() {
        return Stream.of(
                Arguments.of("lock", (BiFunction<LockClient, String, RLock>) LockClient::getLock),
                Arguments.of("fair", (BiFunction<LockClient, String, RLock>) LockClient::getFairLock),
                Arguments.of("write", (BiFunction<LockClient, String, RLock>) (c, n) -> c.getReadWriteLock(n).writeLock()),
                Arguments.of("read", (BiFunction<LockClient, String, RLock>) (c, n) -> c.getReadWriteLock(n).readLock()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void theGiveBackOfACancelledAcquisitionDoesNotRemoveTheOwnersNextHold(String kind,
            BiFunction<LockClient, String, RLock> make, RedisServerProcess server) throws Exception {
        LockClient client = clients.open(b -> b.commandTimeout(Duration.ofSeconds(10)));
        RLock lock = make.apply(client, Clients.uniqueName("give-back-" + kind));
        // the scripts are on the server: nothing below waits for a NOSCRIPT retry
        lock.lockAsync(30, TimeUnit.SECONDS, OWNER).get(10, TimeUnit.SECONDS);
        lock.unlockAsync(OWNER).get(10, TimeUnit.SECONDS);

        server.pause();
        CompletableFuture<Boolean> cancelled = lock.tryLockAsync(20, 30, TimeUnit.SECONDS, OWNER);
        cancelled.cancel(false);
        CompletableFuture<Boolean> next = lock.tryLockAsync(20, 30, TimeUnit.SECONDS, OWNER);
        server.resume();

        assertThat(next.get(30, TimeUnit.SECONDS)).as("the next acquisition holds").isTrue();
        // sent on the client's connection after whatever the cancelled acquisition sent
        assertThat(lock.isHeldByThread(OWNER)).as("%s: Redis still has the next hold", kind).isTrue();
        lock.unlockAsync(OWNER).get(10, TimeUnit.SECONDS);
        assertThat(lock.isLocked()).as("one unlock frees it: the owner held it once").isFalse();
    }
}
