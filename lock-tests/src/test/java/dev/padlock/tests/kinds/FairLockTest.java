package dev.padlock.tests.kinds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.spi.LockKeys;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import dev.padlock.tests.support.Contention;
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

/**
 * The fair lock: first come, first served across threads and clients, each unlock passing the lock
 * to the next waiter in line, and a line nobody can block.
 */
@RedisTest
class FairLockTest {
    @RegisterExtension
    final Clients clients = new Clients();

    private final ExecutorService pool = Executors.newCachedThreadPool();
    /** The most a condition or a woken waiter is given: catches a hang, not a slow machine. */
    private static final Duration BOUND = Duration.ofSeconds(30);

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
            await().atMost(BOUND).until(() -> queue(admin, name).size() == index + 1);
        }
        holder.unlock();
        CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        assertThat(order).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
        assertThat(admin.commands().exists(name, queueKey(name))).as("lock and line both gone").isZero();
    }

    @Test
    void aWaiterThatGivesUpLeavesTheQueueAndDoesNotHoldUpTheOnesBehindIt(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("fair-timeout");
        RLock holder = clients.open().getFairLock(name);
        RLock quitter = clients.open().getFairLock(name);
        RLock patient = clients.open().getFairLock(name);
        holder.lock();
        CompletableFuture<Boolean> quit = CompletableFuture.supplyAsync(() -> Contention.tryLock(quitter, 500), pool);
        await().atMost(BOUND).until(() -> queue(admin, name).size() == 1);
        CompletableFuture<Long> patientAt = acquiredAt(patient, 60_000);
        await().atMost(BOUND).until(() -> queue(admin, name).size() == 2);
        assertThat(quit.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isFalse();
        assertThat(queue(admin, name)).as("the quitter left the queue").hasSize(1);
        long unlockedAt = System.nanoTime();
        holder.unlock();
        long millis = TimeUnit.NANOSECONDS.toMillis(patientAt.get(BOUND.toSeconds(), TimeUnit.SECONDS) - unlockedAt);
        System.out.printf("fair waiter behind a quitter acquired %d ms after the unlock (lease 30 s)%n", millis);
        // generous for a busy machine, far from the 30 s lease a waiter left asleep waits out
        assertThat(millis).as("woken by the unlock, not by the lease").isLessThan(10_000);
    }

    @Test
    void aWaiterWhoseClientIsGoneIsPassedOverAtOnce(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("fair-gone");
        RLock holder = clients.open().getFairLock(name);
        RLock live = clients.open().getFairLock(name);
        holder.lock();
        // first in line: a waiter whose process is gone (nobody listens on its grant channel); a grant to
        // it would hold for its 20 s lease, which a bound a busy machine meets tells apart
        admin.commands().rpush(queueKey(name), "gone-client:1:20000:1");
        CompletableFuture<Long> liveAt = acquiredAt(live, 60_000);
        await().atMost(BOUND).until(() -> queue(admin, name).size() == 2);
        long unlockedAt = System.nanoTime();
        holder.unlock();
        assertThat(admin.commands().hkeys(name)).as("the unlock granted nothing to the gone waiter")
                .noneMatch(field -> field.startsWith("gone-client:"));
        long millis = TimeUnit.NANOSECONDS.toMillis(liveAt.get(BOUND.toSeconds(), TimeUnit.SECONDS) - unlockedAt);
        System.out.printf("fair waiter behind a gone one acquired %d ms after the unlock%n", millis);
        assertThat(millis).as("granted by the unlock, the gone waiter passed over").isLessThan(10_000);
        assertThat(admin.commands().exists(name, queueKey(name))).isZero();
    }

    /**
     * Issue 13: a waiter frozen while first in line (subscribed, never acting) holds the lock for its
     * grant lease; the next waiter takes it at its next look, within its own grant lease (1 s here:
     * twice its 500 ms command timeout, at least 1 s), its longest park.
     */
    @Test
    void aWaiterFrozenAtTheHeadOfTheLineDelaysTheLockByItsGrantLease(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("fair-frozen");
        RLock holder = clients.open().getFairLock(name);
        RLock live = clients.open(b -> b.commandTimeout(Duration.ofMillis(500))).getFairLock(name);
        long grantLease = 3_000; // long enough to find the grant on Redis right after the unlock
        RedisClient raw = RedisClient.create(admin.uri());
        try (StatefulRedisPubSubConnection<String, String> frozen = raw.connectPubSub()) {
            frozen.sync().subscribe("padlock_grant:{" + name + "}:frozen-client");
            holder.lock();
            admin.commands().rpush(queueKey(name), "frozen-client:1:" + grantLease + ":1");
            CompletableFuture<Long> liveAt = acquiredAt(live, 60_000);
            await().atMost(BOUND).until(() -> queue(admin, name).size() == 2);
            long unlockedAt = System.nanoTime();
            holder.unlock();
            assertThat(admin.commands().hkeys(name)).as("granted to the frozen waiter").containsExactly("frozen-client:1");
            long millis = TimeUnit.NANOSECONDS.toMillis(liveAt.get(BOUND.toSeconds(), TimeUnit.SECONDS) - unlockedAt);
            System.out.printf("fair waiter behind a frozen one acquired %d ms after the unlock (grant lease %d ms)%n",
                    millis, grantLease);
            // Redis holds the grant for its lease, which began after unlockedAt: a floor no machine can undercut
            assertThat(millis).as("after the frozen waiter's grant lease, not before").isGreaterThanOrEqualTo(grantLease - 100);
            // its longest park (1 s) after that when it works; the slack is generous for a busy machine and
            // far from the 60 s wait of a waiter left asleep
            assertThat(millis).as("and within the next waiter's longest park after it").isLessThan(grantLease + 10_000);
        } finally {
            raw.shutdown();
        }
    }

    /** Issue 13: one message per hand-off, on the next waiter's client's grant channel; nobody else is woken. */
    @Test
    void anUnlockGrantsTheNextWaiterWithOneMessageToItsClientOnly(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("fair-grant");
        RLock holder = clients.open().getFairLock(name);
        holder.lock();
        List<LockClient> waiting = List.of(clients.open(), clients.open(), clients.open());
        List<CompletableFuture<Void>> done = new ArrayList<>();
        // each waiter holds until the test has counted the messages of the first hand-off: no later
        // hand-off can be counted with it, however slow the machine
        java.util.concurrent.CountDownLatch counted = new java.util.concurrent.CountDownLatch(1);
        for (int i = 0; i < waiting.size(); i++) {
            RLock lock = waiting.get(i).getFairLock(name);
            done.add(CompletableFuture.runAsync(() -> {
                lock.lock();
                try {
                    counted.await(BOUND.toSeconds(), TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    lock.unlock();
                }
            }, pool));
            int queued = i + 1;
            await().atMost(BOUND).until(() -> queue(admin, name).size() == queued);
        }
        String first = queue(admin, name).get(0);
        String firstField = first.substring(0, first.indexOf(':', first.indexOf(':') + 1));
        Map<String, AtomicInteger> messages = new ConcurrentHashMap<>();
        String fenceChannel = "padlock_grant:{" + name + "}:test-fence";
        java.util.concurrent.CountDownLatch fenced = new java.util.concurrent.CountDownLatch(1);
        RedisClient raw = RedisClient.create(admin.uri());
        try (StatefulRedisPubSubConnection<String, String> listener = raw.connectPubSub()) {
            listener.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String pattern, String channel, String message) {
                    if (channel.equals(fenceChannel)) {
                        fenced.countDown();
                    } else {
                        messages.computeIfAbsent(channel, c -> new AtomicInteger()).incrementAndGet();
                    }
                }
            });
            listener.sync().psubscribe("redisson_lock__channel:{" + name + "}*", "padlock_grant:{" + name + "}*");
            holder.unlock();
            assertThat(admin.commands().hkeys(name)).as("the first waiter holds once the unlock returns")
                    .containsExactly(firstField);
            // the unlock has run: a fence published now reaches the listener after everything it published
            admin.commands().publish(fenceChannel, "fence");
            assertThat(fenced.await(BOUND.toSeconds(), TimeUnit.SECONDS)).as("the fence came through").isTrue();
            String channel = "padlock_grant:{" + name + "}:" + firstField.substring(0, firstField.indexOf(':'));
            assertThat(messages).as("one message, on the first waiter's client's grant channel only")
                    .containsOnlyKeys(channel);
            assertThat(messages.get(channel)).hasValue(1);
        } finally {
            counted.countDown();
            raw.shutdown();
        }
        CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    }

    /**
     * Issue 13: a grant holds for the grant lease (here 1 s: twice a 500 ms command timeout) until
     * the grantee sets its own lease and its "since" (when it got the lock), a third of the way in; a
     * watchdog lease is then the watchdog's.
     */
    @Test
    void aGrantedWaiterHoldsWithItsOwnLeaseFromTheGrantAndNotesItsSinceSoonAfter(RedisAdmin admin)
            throws Exception {
        String name = Clients.uniqueName("fair-extend");
        RLock holder = clients.open().getFairLock(name);
        LockClient waiting = clients.open(b -> b.commandTimeout(Duration.ofMillis(500)));
        RLock waiter = waiting.getFairLock(name);
        holder.lock();
        CompletableFuture<Void> granted = waiter.lockAsync(-1, TimeUnit.MILLISECONDS, 7L);
        await().atMost(BOUND).until(() -> queue(admin, name).size() == 1);
        long before = redisMillis(admin);
        holder.unlock();
        granted.get(BOUND.toSeconds(), TimeUnit.SECONDS);
        long after = redisMillis(admin); // the grant message has been received by now
        // issue 21: the grant itself set the watchdog lease, nothing is left to settle
        assertThat(admin.commands().pttl(name)).as("its own lease, from the grant").isGreaterThan(20_000L);
        String field = waiting.getId() + ":7";
        await().atMost(BOUND).until(() -> admin.commands().hexists(LockKeys.since(name), field));
        assertThat(admin.commands().hkeys(name)).as("still held").containsExactly(field);
        // the grantee dates its since back to the grant's message, measured on its own clock: between the
        // unlock and its receipt, plus the settle call's trip to Redis, however slowly that ran
        assertThat(Long.parseLong(admin.commands().hget(LockKeys.since(name), field))).as("since the grant")
                .isBetween(before, after + 1_000);
        assertThat(admin.commands().pttl(LockKeys.since(name))).as("the since expires with the lock").isPositive();
        waiter.unlockAsync(7L).get(5, TimeUnit.SECONDS);
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
     * Issue 9, defect 9: a force unlock passes the lock to the first live waiter in line, not to a
     * dead one; it used to wake the dead one, leaving the live waiter parked until the holder's old
     * lease would have run out.
     */
    @Test
    void forceUnlockSkipsDeadWaiters(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("fair-force-dead");
        RLock holder = clients.open().getFairLock(name);
        RLock live = clients.open().getFairLock(name);
        // leases far apart from the bound below: the old one 30 s, a grant to the dead waiter 20 s
        holder.lock(30, TimeUnit.SECONDS);
        admin.commands().rpush(queueKey(name), "dead-client:1:20000:1"); // its process is gone
        CompletableFuture<Long> liveAt = acquiredAt(live, 60_000);
        await().atMost(BOUND).until(() -> queue(admin, name).size() == 2);

        long forcedAt = System.nanoTime();
        assertThat(holder.forceUnlock()).isTrue();
        assertThat(admin.commands().hkeys(name)).as("nothing granted to the dead waiter")
                .noneMatch(field -> field.startsWith("dead-client:"));
        long millis = TimeUnit.NANOSECONDS.toMillis(liveAt.get(BOUND.toSeconds(), TimeUnit.SECONDS) - forcedAt);
        System.out.printf("live fair waiter behind a dead one acquired %d ms after forceUnlock (old lease ~29 s)%n", millis);
        assertThat(millis).as("granted by the force unlock, not woken by the old lease").isLessThan(10_000);
        assertThat(admin.commands().exists(name, queueKey(name))).as("lock and line both gone").isZero();
    }

    /** When {@code lock}, waited for up to {@code waitMillis} on another thread, was acquired ({@link System#nanoTime()}); it is unlocked at once. */
    private CompletableFuture<Long> acquiredAt(RLock lock, long waitMillis) {
        return CompletableFuture.supplyAsync(() -> {
            assertThat(Contention.tryLock(lock, waitMillis)).isTrue();
            long at = System.nanoTime();
            lock.unlock();
            return at;
        }, pool);
    }

    private static List<String> queue(RedisAdmin admin, String name) {
        return admin.commands().lrange(queueKey(name), 0, -1);
    }

    private static long redisMillis(RedisAdmin admin) {
        List<String> time = admin.commands().time();
        return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
    }

    private static String queueKey(String name) {
        return "padlock_fair_queue:{" + name + "}";
    }
}
