package dev.padlock.tests.behaviour;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import dev.padlock.tests.support.Renewals;
import java.time.Duration;
import java.util.Map;
import java.util.function.BiFunction;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every kind's watchdog lease outlives its timeout until the unlock, then stops being renewed. */
@RedisTest
class FamilyWatchdogTest {
    private static final Map<String, BiFunction<LockClient, String, RLock>> KINDS = Map.of(
            "lock", LockClient::getLock,
            "fair", LockClient::getFairLock,
            "read", (client, name) -> client.getReadWriteLock(name).readLock(),
            "write", (client, name) -> client.getReadWriteLock(name).writeLock(),
            "fenced", LockClient::getFencedLock,
            "spin", LockClient::getSpinLock);

    @RegisterExtension
    final Clients clients = new Clients();

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lock", "fair", "read", "write", "fenced", "spin"})
    void aWatchdogLeaseIsRenewedUntilTheUnlock(String kind) throws Exception {
        // 1.5 s: renewed every 500 ms, so a stall of a second on a loaded 2-core machine loses nothing
        Renewals renewals = new Renewals();
        LockClient client = clients.open(b -> b.watchdogTimeout(Duration.ofMillis(1_500)).observer(renewals));
        LockClient other = clients.open();
        String name = Clients.uniqueName("watchdog-" + kind);
        RLock lock = KINDS.get(kind).apply(client, name);
        lock.lock();
        // five renewals that each found the lock held: at least 2 s, more than the first lease
        renewals.awaitMore(5);
        assertThat(renewals.lost()).isZero();
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertThat(lock.remainTimeToLive()).isPositive();
        RLock rival = KINDS.get(kind.equals("read") ? "write" : kind).apply(other, name);
        assertThat(rival.tryLock()).as("still excludes a rival").isFalse();
        lock.unlock();
        assertThat(((dev.padlock.internal.PadlockClient) client).renewedLocks()).isZero();
        assertThat(rival.tryLock()).isTrue();
        rival.unlock();
    }
}
