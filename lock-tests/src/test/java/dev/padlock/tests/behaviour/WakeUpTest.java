package dev.padlock.tests.behaviour;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.tests.support.Clients;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@RedisTest
class WakeUpTest {
    @RegisterExtension
    final Clients clients = new Clients();

    @Test
    void aWaiterInAnotherClientAcquiresWellUnderASecondAfterTheUnlock(RedisAdmin admin) throws Exception {
        long latency = handOffMillis(admin, clients.open(), clients.open(), "wake-other");
        System.out.printf("wake-up latency, other client: %.2f ms after unlock (lease 30 s)%n", latency / 1e6);
        assertThat(latency).isLessThan(TimeUnit.SECONDS.toNanos(1));
    }

    @Test
    void aWaiterInTheSameClientAcquiresWellUnderASecondAfterTheUnlock(RedisAdmin admin) throws Exception {
        LockClient client = clients.open();
        long latency = handOffMillis(admin, client, client, "wake-same");
        System.out.printf("wake-up latency, same client: %.2f ms after unlock (lease 30 s)%n", latency / 1e6);
        assertThat(latency).isLessThan(TimeUnit.SECONDS.toNanos(1));
    }

    /** Nanoseconds from the holder's unlock to the waiter's acquire, on a lock with a 30 s lease. */
    private static long handOffMillis(RedisAdmin admin, LockClient holderClient, LockClient waiterClient, String prefix)
            throws Exception {
        String name = Clients.uniqueName(prefix);
        RLock holder = holderClient.getLock(name);
        RLock waiter = waiterClient.getLock(name);
        holder.lock(30, TimeUnit.SECONDS);
        CompletableFuture<Long> acquiredAt = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                assertThat(waiter.tryLock(20, 30, TimeUnit.SECONDS)).isTrue();
                acquiredAt.complete(System.nanoTime());
                waiter.unlock();
            } catch (Throwable t) {
                acquiredAt.completeExceptionally(t);
            }
        });
        thread.start();
        if (holderClient != waiterClient) {
            // another client waits on the unlock channel
            String channel = "redisson_lock__channel:{" + name + "}";
            await().atMost(Duration.ofSeconds(5)).until(() -> admin.commands().pubsubNumsub(channel).get(channel) >= 1);
        }
        // parked (in another client after its post-subscribe attempt; in the same client, in the local queue)
        await().atMost(Duration.ofSeconds(5)).until(() -> thread.getState() == Thread.State.WAITING
                || thread.getState() == Thread.State.TIMED_WAITING);
        Thread.sleep(50); // settle; nothing is asserted on it
        long unlockedAt = System.nanoTime();
        holder.unlock();
        long latency = acquiredAt.get(20, TimeUnit.SECONDS) - unlockedAt;
        thread.join(5_000);
        return latency;
    }

    @Test
    void theChannelGetsZeroAtTheFinalUnlockAndNothingAtAnInnerOne(RedisEndpoint redis) throws Exception {
        String name = Clients.uniqueName("publish");
        String channel = "redisson_lock__channel:{" + name + "}";
        List<String> messages = new CopyOnWriteArrayList<>();
        RedisClient lettuce = RedisClient.create(redis.uri());
        try (StatefulRedisPubSubConnection<String, String> pubSub = lettuce.connectPubSub()) {
            pubSub.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String ch, String message) {
                    messages.add(ch + "=" + message);
                }
            });
            pubSub.sync().subscribe(channel);

            RLock lock = clients.open().getLock(name);
            lock.lock();
            lock.lock();
            lock.unlock();
            await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(messages::isEmpty);
            lock.unlock();
            await().atMost(Duration.ofSeconds(2)).until(() -> messages.size() == 1);
            assertThat(messages).containsExactly(channel + "=0");

            assertThat(clients.open().getLock(name).forceUnlock()).isFalse();
            RLock forced = clients.open().getLock(name);
            lock.lock();
            assertThat(forced.forceUnlock()).isTrue();
            await().atMost(Duration.ofSeconds(2)).until(() -> messages.size() == 2);
            assertThat(messages).containsExactly(channel + "=0", channel + "=0");
        } finally {
            lettuce.shutdown();
        }
    }

    @Test
    void aNameWithABraceUsesItAsTheHashTag(RedisAdmin admin) throws Exception {
        String name = "{" + Clients.uniqueName("tagged") + "}:orders";
        String channel = "redisson_lock__channel:" + name;
        RLock holder = clients.open().getLock(name);
        RLock waiter = clients.open().getLock(name);
        holder.lock(30, TimeUnit.SECONDS);
        CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                boolean acquired = waiter.tryLock(20, 30, TimeUnit.SECONDS);
                waiter.unlock();
                return acquired;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> admin.commands().pubsubNumsub(channel).get(channel) >= 1);
        holder.unlock();
        assertThat(waiting.get(5, TimeUnit.SECONDS)).isTrue();
    }
}
