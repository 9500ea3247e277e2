package dev.padlock.tests.behaviour;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.internal.PadlockClient;
import dev.padlock.spi.LockKeys;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import dev.padlock.tests.support.Renewals;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A client that touches many distinct names keeps bounded local state, and renews in batches. */
@RedisTest
class BoundedLocalStateTest {
    @RegisterExtension
    final Clients clients = new Clients();

    @Test
    void subscriptionsForManyDistinctNamesStayBounded() throws Exception {
        LockClient holderClient = clients.open();
        PadlockClient waiterClient = (PadlockClient) clients.open();
        int names = 1_300; // more than the idle bound of 1,024
        for (int i = 0; i < names; i++) {
            String name = "bounded:" + i + ":" + System.nanoTime();
            RLock holder = holderClient.getLock(name);
            holder.lockAsync(10, TimeUnit.SECONDS, 1L).get(5, TimeUnit.SECONDS);
            // a short wait on a held lock: one subscription, then given back
            assertThat(waiterClient.getLock(name).tryLock(1, 5, TimeUnit.MILLISECONDS)).isFalse();
            holder.forceUnlock();
        }
        assertThat(waiterClient.channelsInUse()).isZero();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(waiterClient.subscribedChannels()).isLessThanOrEqualTo(1_024));
    }

    @Test
    void manyWatchdogLeasesAreRenewedInFewCalls(RedisAdmin admin) throws Exception {
        // renewed every 500 ms: taking 150 locks on a busy machine loses none of their leases meanwhile
        Renewals renewals = new Renewals();
        PadlockClient client = (PadlockClient) clients.open(b -> b.watchdogTimeout(Duration.ofMillis(1_500))
                .observer(renewals));
        List<RLock> held = new ArrayList<>();
        for (int i = 0; i < 150; i++) {
            RLock lock = client.getLock(Clients.uniqueName("batch-" + i));
            lock.lockAsync(-1, TimeUnit.MILLISECONDS, 5L).get(5, TimeUnit.SECONDS);
            held.add(lock);
        }
        assertThat(client.renewedLocks()).isEqualTo(150);
        // each hold's since is noted once it has lasted a second (a script call each): wait until
        // all 150 are, so that the window below counts renewals only
        await().atMost(Duration.ofSeconds(60)).until(() -> held.stream()
                .allMatch(lock -> admin.commands().exists(LockKeys.since(lock.getName())) > 0));
        // the window is three rounds of renewals, however long they take. Renewals go out as EVAL (in order
        // with later releases, see ScriptRunner.runInOrder); nothing else runs a script in it but, at most
        // once, the client registry's refresh (an EVAL every 20 s), which the bound below allows for
        long before = admin.commandStats().calls("eval");
        long pexpireBefore = admin.commandStats().calls("pexpire");
        renewals.awaitMore(150 * 3);
        long renewCalls = admin.commandStats().calls("eval") - before;
        long renewed = admin.commandStats().calls("pexpire") - pexpireBefore;
        System.out.printf("three rounds of renewing 150 locks: %d script calls, %d leases set%n", renewCalls, renewed);
        assertThat(renewals.lost()).as("no lease lost").isZero();
        assertThat(renewCalls).as("the renewals were counted").isGreaterThanOrEqualTo(3);
        // three rounds of two calls each, and a round in flight at either end of the window; one call a lock
        // would be 450
        assertThat(renewCalls).as("batched: two calls (100 + 50 locks) a round, not one a lock").isLessThanOrEqualTo(16);
        for (RLock lock : held) {
            assertThat(lock.isLocked()).isTrue();
            lock.unlockAsync(5L).get(5, TimeUnit.SECONDS);
        }
        assertThat(client.renewedLocks()).isZero();
    }
}
