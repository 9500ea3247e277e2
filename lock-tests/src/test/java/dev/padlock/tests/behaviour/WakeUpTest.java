package dev.padlock.tests.behaviour;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
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
    /**
     * The issue asks for a wake-up well under a second, and the printed latency is a few ms on an idle
     * machine; the assertion allows 5 s, what a loaded 2-core CI machine meets, and still tells a
     * wake-up by the unlock from the 30 s lease a missed one would wait out.
     */
    private static final long LATENCY_BOUND_NANOS = TimeUnit.SECONDS.toNanos(5);

    @RegisterExtension
    final Clients clients = new Clients();

    @Test
    void aWaiterInAnotherClientAcquiresWellUnderASecondAfterTheUnlock(RedisAdmin admin) throws Exception {
        long latency = handOffMillis(admin, clients.open(), clients.open(), "wake-other");
        System.out.printf("wake-up latency, other client: %.2f ms after unlock (lease 30 s)%n", latency / 1e6);
        assertThat(latency).isLessThan(LATENCY_BOUND_NANOS);
    }

    @Test
    void aWaiterInTheSameClientAcquiresWellUnderASecondAfterTheUnlock(RedisAdmin admin) throws Exception {
        LockClient client = clients.open();
        long latency = handOffMillis(admin, client, client, "wake-same");
        System.out.printf("wake-up latency, same client: %.2f ms after unlock (lease 30 s)%n", latency / 1e6);
        assertThat(latency).isLessThan(LATENCY_BOUND_NANOS);
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
            await().atMost(Duration.ofSeconds(30)).until(() -> admin.commands().pubsubNumsub(channel).get(channel) >= 1);
        }
        // waiting (in another client, subscribed, its post-subscribe attempt maybe still on its way, which
        // only makes the wake-up quicker; in the same client, in the local queue)
        await().atMost(Duration.ofSeconds(30)).until(() -> thread.getState() == Thread.State.WAITING
                || thread.getState() == Thread.State.TIMED_WAITING);
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
        String fence = "fence-" + java.util.UUID.randomUUID();
        java.util.concurrent.CountDownLatch fenced = new java.util.concurrent.CountDownLatch(1);
        RedisClient lettuce = RedisClient.create(redis.uri());
        try (StatefulRedisPubSubConnection<String, String> pubSub = lettuce.connectPubSub()) {
            pubSub.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String ch, String message) {
                    if (message.equals(fence)) {
                        fenced.countDown();
                    } else {
                        messages.add(ch + "=" + message);
                    }
                }
            });
            pubSub.sync().subscribe(channel);

            RLock lock = clients.open().getLock(name);
            lock.lock();
            lock.lock();
            lock.unlock();
            // the inner unlock has been answered: a fence published now comes after anything it published
            try (var publisher = lettuce.connect()) {
                publisher.sync().publish(channel, fence);
            }
            assertThat(fenced.await(30, TimeUnit.SECONDS)).as("the fence came through").isTrue();
            assertThat(messages).as("nothing from the inner unlock").isEmpty();
            lock.unlock();
            await().atMost(Duration.ofSeconds(30)).until(() -> messages.size() == 1);
            assertThat(messages).containsExactly(channel + "=0");

            assertThat(clients.open().getLock(name).forceUnlock()).isFalse();
            RLock forced = clients.open().getLock(name);
            lock.lock();
            assertThat(forced.forceUnlock()).isTrue();
            await().atMost(Duration.ofSeconds(30)).until(() -> messages.size() == 2);
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
        await().atMost(Duration.ofSeconds(30)).until(() -> admin.commands().pubsubNumsub(channel).get(channel) >= 1);
        holder.unlock();
        assertThat(waiting.get(30, TimeUnit.SECONDS)).isTrue();
    }
}
