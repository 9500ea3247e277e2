package dev.padlock.tests.faults;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.tests.support.Clients;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisServerProcess;
import dev.padlock.testing.junit.RedisTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Script cache loss, pub/sub connection loss and a Redis restart: nothing hangs, locks work after. */
@RedisTest(controllable = true)
@Tag("faults")
class RecoveryTest {
    private static final int WAITERS = 4;

    @RegisterExtension
    final Clients clients = new Clients();

    @Test
    void scriptFlushIsRecoveredByLoadingTheScriptAgain(RedisAdmin admin) {
        RLock lock = clients.open().getLock(Clients.uniqueName("flush"));
        lock.lock();
        lock.unlock();
        admin.scriptFlush();
        lock.lock();
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        admin.scriptFlush();
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void waitersSurviveTheirPubSubConnectionBeingKilled(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("pubsub-kill");
        RLock holder = clients.open().getLock(name);
        LockClient waiterClient = clients.open();
        holder.lock(30, TimeUnit.SECONDS);
        List<CompletableFuture<Boolean>> waiters = startWaiters(waiterClient.getLock(name), 20);
        awaitSubscribed(admin, name);

        assertThat(admin.killPubSubClients()).isPositive();
        awaitSubscribed(admin, name); // Lettuce reconnected and resubscribed
        holder.unlock();

        for (CompletableFuture<Boolean> waiter : waiters) {
            assertThat(waiter.get(15, TimeUnit.SECONDS)).as("woken long before the 30 s lease").isTrue();
        }
        assertThat(admin.commands().exists(name)).isZero();
    }

    @Test
    void aRestartOnTheSamePortDoesNotHangAnyoneAndLocksWorkAfterwards(RedisServerProcess server, RedisAdmin admin)
            throws Exception {
        String name = Clients.uniqueName("restart");
        LockClient holderClient = clients.open(b -> b.commandTimeout(Duration.ofSeconds(2)));
        LockClient waiterClient = clients.open(b -> b.commandTimeout(Duration.ofSeconds(2)));
        RLock holder = holderClient.getLock(name);
        holder.lock(30, TimeUnit.SECONDS);
        List<CompletableFuture<Boolean>> waiters = startWaiters(waiterClient.getLock(name), 20);
        awaitSubscribed(admin, name);

        server.restart();

        for (CompletableFuture<Boolean> waiter : waiters) {
            // either it got the lock on the fresh server, or it failed with an exception naming Redis
            waiter.handle((acquired, failure) -> acquired != null || failure != null).get(25, TimeUnit.SECONDS);
        }
        RLock after = waiterClient.getLock(name);
        await().atMost(Duration.ofSeconds(10)).pollInSameThread().ignoreExceptions()
                .until(() -> after.tryLock(1, 5, TimeUnit.SECONDS));
        after.unlock();
        RLock fresh = holderClient.getLock(Clients.uniqueName("after-restart"));
        fresh.lock();
        assertThat(fresh.isHeldByCurrentThread()).isTrue();
        fresh.unlock();
    }

    /** Waiters that each take and release the lock once, in their own thread. */
    private static List<CompletableFuture<Boolean>> startWaiters(RLock lock, int waitSeconds) {
        List<CompletableFuture<Boolean>> waiters = new ArrayList<>();
        for (int i = 0; i < WAITERS; i++) {
            waiters.add(CompletableFuture.supplyAsync(() -> {
                try {
                    boolean acquired = lock.tryLock(waitSeconds, 30, TimeUnit.SECONDS);
                    if (acquired) {
                        lock.unlock();
                    }
                    return acquired;
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }, CompletableFuture.delayedExecutor(0, TimeUnit.MILLISECONDS, r -> new Thread(r).start())));
        }
        return waiters;
    }

    private static void awaitSubscribed(RedisAdmin admin, String name) {
        String channel = "redisson_lock__channel:{" + name + "}";
        await().atMost(Duration.ofSeconds(10)).ignoreExceptions()
                .until(() -> admin.commands().pubsubNumsub(channel).get(channel) >= 1);
    }
}
