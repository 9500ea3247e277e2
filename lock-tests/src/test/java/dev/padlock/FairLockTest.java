package dev.padlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisTest;
import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The fair lock: first come, first served across threads and clients, and a queue nobody can block. */
@RedisTest
class FairLockTest {
    @RegisterExtension
    final Clients clients = new Clients();

    private final ExecutorService pool = Executors.newCachedThreadPool();

    @Test
    void threadsOfTwoClientsQueuedInAKnownOrderAcquireInThatOrder(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("fair-order");
        LockClient first = clients.open();
        LockClient second = clients.open();
        RLock holder = first.getFairLock(name);
        holder.lock();
        int waiters = 8;
        List<Integer> order = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (int i = 0; i < waiters; i++) {
            int index = i;
            RLock lock = (i % 2 == 0 ? first : second).getFairLock(name);
            done.add(CompletableFuture.runAsync(() -> {
                lock.lock();
                try {
                    order.add(index);
                } finally {
                    lock.unlock();
                }
            }, pool));
            // the next waiter starts only once this one has its place in the queue on Redis
            await().atMost(Duration.ofSeconds(10)).until(() -> queue(admin, name).size() == index + 1);
        }
        holder.unlock();
        CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);
        assertThat(order).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
        assertThat(admin.commands().exists(name, "redisson_lock_queue:{" + name + "}", "redisson_lock_timeout:{" + name + "}"))
                .as("lock, queue and deadlines all gone").isZero();
    }

    @Test
    void aWaiterThatGivesUpLeavesTheQueueAndDoesNotHoldUpTheOnesBehindIt(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("fair-timeout");
        RLock holder = clients.open().getFairLock(name);
        RLock quitter = clients.open().getFairLock(name);
        RLock patient = clients.open().getFairLock(name);
        holder.lock();
        CompletableFuture<Boolean> quit = CompletableFuture.supplyAsync(() -> Contention.tryLock(quitter, 500), pool);
        await().atMost(Duration.ofSeconds(10)).until(() -> queue(admin, name).size() == 1);
        CompletableFuture<Long> patientAt = CompletableFuture.supplyAsync(() -> {
            assertThat(Contention.tryLock(patient, 20_000)).isTrue();
            long at = System.nanoTime();
            patient.unlock();
            return at;
        }, pool);
        await().atMost(Duration.ofSeconds(10)).until(() -> queue(admin, name).size() == 2);
        assertThat(quit.get(10, TimeUnit.SECONDS)).isFalse();
        assertThat(queue(admin, name)).as("the quitter left the queue").hasSize(1);
        long unlockedAt = System.nanoTime();
        holder.unlock();
        long millis = TimeUnit.NANOSECONDS.toMillis(patientAt.get(10, TimeUnit.SECONDS) - unlockedAt);
        System.out.printf("fair waiter behind a quitter acquired %d ms after the unlock (lease 30 s)%n", millis);
        assertThat(millis).as("woken by the unlock, not by the lease").isLessThan(5_000);
    }

    @Test
    void aWaiterThatDiedIsDroppedOnceItsDeadlinePasses(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("fair-dead");
        RLock holder = clients.open().getFairLock(name);
        RLock live = clients.open(b -> b.fairWaiterTimeout(Duration.ofMillis(300))).getFairLock(name);
        holder.lock(2, TimeUnit.SECONDS);
        // a waiter whose process is gone: first in line, checked in a moment ago, never again
        long now = redisMillis(admin);
        admin.commands().rpush("redisson_lock_queue:{" + name + "}", "dead-client:1");
        admin.commands().zadd("redisson_lock_timeout:{" + name + "}", now + 2_300, "dead-client:1");
        CompletableFuture<Boolean> acquired = CompletableFuture.supplyAsync(() -> Contention.tryLock(live, 20_000), pool);
        await().atMost(Duration.ofSeconds(10)).until(() -> queue(admin, name).size() == 2);
        holder.unlock(); // wakes the dead waiter, which never comes
        assertThat(acquired.get(15, TimeUnit.SECONDS)).as("the live waiter gets the lock after the dead one's deadline").isTrue();
        assertThat(queue(admin, name)).isEmpty();
        live.forceUnlock();
    }

    @Test
    void anUnlockWakesOnlyTheNextWaitersClient(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("fair-wake");
        RLock holder = clients.open().getFairLock(name);
        holder.lock();
        List<LockClient> waiting = List.of(clients.open(), clients.open(), clients.open());
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (int i = 0; i < waiting.size(); i++) {
            RLock lock = waiting.get(i).getFairLock(name);
            done.add(CompletableFuture.runAsync(() -> {
                lock.lock();
                Contention.sleep(1_500);
                lock.unlock();
            }, pool));
            int queued = i + 1;
            await().atMost(Duration.ofSeconds(10)).until(() -> queue(admin, name).size() == queued);
        }
        List<String> queued = queue(admin, name);
        Map<String, AtomicInteger> messages = new ConcurrentHashMap<>();
        RedisClient raw = RedisClient.create(admin.uri());
        try (StatefulRedisPubSubConnection<String, String> listener = raw.connectPubSub()) {
            listener.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String pattern, String channel, String message) {
                    messages.computeIfAbsent(channel, c -> new AtomicInteger()).incrementAndGet();
                }
            });
            listener.sync().psubscribe("redisson_lock__channel:{" + name + "}*");
            holder.unlock();
            Thread.sleep(700); // the first waiter then holds the lock for 1.5 s: no other message is due yet
            assertThat(messages).as("one message, on the first waiter's channel only")
                    .containsOnlyKeys("redisson_lock__channel:{" + name + "}:" + queued.get(0));
            assertThat(messages.get("redisson_lock__channel:{" + name + "}:" + queued.get(0))).hasValue(1);
        } finally {
            raw.shutdown();
        }
        CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);
    }

    @Test
    void aOneShotTryLockDoesNotJumpOrJoinTheQueue(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("fair-oneshot");
        RLock holder = clients.open().getFairLock(name);
        RLock other = clients.open().getFairLock(name);
        holder.lock();
        assertThat(holder.tryLock()).as("re-entry").isTrue();
        assertThat(holder.getHoldCount()).isEqualTo(2);
        assertThat(other.tryLock()).isFalse();
        assertThat(queue(admin, name)).as("a one-shot attempt does not queue").isEmpty();
        holder.unlock();
        holder.unlock();
        assertThat(other.tryLock()).isTrue();
        other.unlock();
    }

    /**
     * Issue 9, defect 9: a force unlock drops waiters whose deadline passed before it wakes the
     * first one in line, as an unlock does; it used to wake the dead one, leaving the live waiter
     * parked until the holder's old lease would have run out.
     */
    @Test
    void forceUnlockSkipsDeadWaiters(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("fair-force-dead");
        RLock holder = clients.open().getFairLock(name);
        RLock live = clients.open().getFairLock(name);
        holder.lock(10, TimeUnit.SECONDS);
        // a waiter whose process is gone: first in line, its place lapses in a moment
        long deadline = redisMillis(admin) + 300;
        admin.commands().rpush("redisson_lock_queue:{" + name + "}", "dead-client:1");
        admin.commands().zadd("redisson_lock_timeout:{" + name + "}", deadline, "dead-client:1");
        CompletableFuture<Long> liveAt = CompletableFuture.supplyAsync(() -> {
            assertThat(Contention.tryLock(live, 20_000)).isTrue();
            long at = System.nanoTime();
            live.unlock();
            return at;
        }, pool);
        await().atMost(Duration.ofSeconds(10)).until(() -> queue(admin, name).size() == 2);
        await().atMost(Duration.ofSeconds(10)).until(() -> redisMillis(admin) > deadline);
        assertThat(queue(admin, name)).as("nobody dropped the dead waiter yet").startsWith("dead-client:1");

        long forcedAt = System.nanoTime();
        assertThat(holder.forceUnlock()).isTrue();
        long millis = TimeUnit.NANOSECONDS.toMillis(liveAt.get(15, TimeUnit.SECONDS) - forcedAt);
        System.out.printf("live fair waiter behind a dead one acquired %d ms after forceUnlock (old lease ~9 s)%n", millis);
        assertThat(millis).as("woken by the force unlock, not by the old lease").isLessThan(2_000);
        assertThat(admin.commands().exists(name, "redisson_lock_queue:{" + name + "}", "redisson_lock_timeout:{" + name + "}"))
                .as("lock, queue and deadlines all gone").isZero();
    }

    private static List<String> queue(RedisAdmin admin, String name) {
        return admin.commands().lrange("redisson_lock_queue:{" + name + "}", 0, -1);
    }

    private static long redisMillis(RedisAdmin admin) {
        List<String> time = admin.commands().time();
        return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
    }
}
