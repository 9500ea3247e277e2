package dev.padlock.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.testing.RedisAdmin;
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
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 37, case 1: a re-entry whose reply was lost was confirmed by the outer hold. The re-entry's
 * script never ran, the in-doubt check asked whether the owner's field was there ({@code HEXISTS}),
 * the outer hold said yes, and the owner was told it held twice while Redis counted 1: its inner
 * unlock then freed the lock under its outer section. The check now compares the owner's hold
 * count with the holds it has besides the re-entry.
 */
@RedisTest(controllable = true)
@Tag("faults")
class ReentryInDoubtTest {
    private static final long OWNER = 7;
    private static final Duration BOUND = Duration.ofSeconds(30);

    @RegisterExtension
    final Clients clients = new Clients();

    @AfterEach
    void resume(RedisServerProcess server) {
        if (server.isPaused()) {
            server.resume();
        }
    }

    /** Every kind of hash lock, and the suffix of its owner's field. */
    static Stream<Arguments> kinds() {
        return Stream.of(
                Arguments.of("plain", (BiFunction<LockClient, String, RLock>) LockClient::getLock, ""),
                Arguments.of("spin", (BiFunction<LockClient, String, RLock>) LockClient::getSpinLock, ""),
                Arguments.of("fenced", (BiFunction<LockClient, String, RLock>) LockClient::getFencedLock, ""),
                Arguments.of("fair", (BiFunction<LockClient, String, RLock>) LockClient::getFairLock, ""),
                Arguments.of("read", (BiFunction<LockClient, String, RLock>) (c, n) -> c.getReadWriteLock(n).readLock(), ""),
                Arguments.of("write", (BiFunction<LockClient, String, RLock>) (c, n) -> c.getReadWriteLock(n).writeLock(),
                        ":write"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void aReentryWhoseScriptNeverRanIsNotConfirmedByTheOuterHold(String kind,
            BiFunction<LockClient, String, RLock> make, String fieldSuffix, RedisServerProcess server, RedisAdmin admin) {
        String name = Clients.uniqueName("reentry-in-doubt-" + kind);
        LockClient client = clients.open(b -> b.commandTimeout(Duration.ofMillis(500)));
        RLock lock = make.apply(client, name);
        String field = client.getId() + ":" + OWNER + fieldSuffix;
        assertThat(lock.tryLockAsync(0, 60, TimeUnit.SECONDS, OWNER)).succeedsWithin(BOUND).isEqualTo(true);

        // the scripts are not on the server: the re-entry's EVALSHA, read after its timeout, answers
        // NOSCRIPT too late for the EVAL that would follow, so the re-entry surely does not land
        admin.commands().scriptFlush();
        server.pause();
        CompletableFuture<Boolean> reentry = lock.tryLockAsync(20, 60, TimeUnit.SECONDS, OWNER);
        // a read sent after it on the same connection timing out means the re-entry's reply is lost too
        assertThat(lock.isLockedAsync()).failsWithin(BOUND);
        server.resume();

        assertThat(reentry).succeedsWithin(BOUND).isEqualTo(true);
        assertThat(admin.commands().hget(name, field)).as("two holds told, two counted on Redis").isEqualTo("2");
        assertThat(lock.unlockAsync(OWNER)).succeedsWithin(BOUND);
        assertThat(admin.commands().hget(name, field)).as("the inner unlock leaves the outer hold").isEqualTo("1");
        assertThat(lock.unlockAsync(OWNER)).succeedsWithin(BOUND);
        assertThat(admin.commands().hexists(name, field)).isFalse();
    }
}
