package dev.padlock.tests.behaviour;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.spi.LockKeys;
import dev.padlock.testing.CommandStats;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import dev.padlock.tests.support.Quiet;
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

/**
 * Turns between clients (each a process of its own in production): a waiting client gets in line
 * on Redis, and an unlock passes the lock straight to the first client in line, with one message
 * on that client's grant channel and none on the shared unlock channel.
 */
@RedisTest
class CrossClientGrantTest {
    /** Long enough that the frozen client's grant (two of them) is still there when the test looks. */
    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(2_500);
    /** Two command timeouts: see LockServices.grantLeaseMillis. */
    private static final long GRANT_LEASE_MILLIS = 2 * COMMAND_TIMEOUT.toMillis();
    /**
     * For the tests whose point is that nobody waits out a grant lease: one long enough (20 s) that
     * "well before it" is a bound a busy machine meets, and that no slow step reaches by accident.
     */
    private static final Duration LONG_COMMAND_TIMEOUT = Duration.ofSeconds(10);
    private static final long LONG_GRANT_LEASE_MILLIS = 2 * LONG_COMMAND_TIMEOUT.toMillis();
    /** The most a woken waiter or a condition is given: catches a hang, not a slow machine. */
    private static final Duration BOUND = Duration.ofSeconds(30);

    @RegisterExtension
    final Clients clients = new Clients();

    @Test
    void anUnlockPassesTheLockToTheClientsInLineInTheirOrderWithoutWakingAnyoneElse(RedisAdmin admin)
            throws Exception {
        String name = Clients.uniqueName("grant-order");
        LockClient a = open();
        LockClient b = open();
        LockClient c = open();
        List<String> order = new CopyOnWriteArrayList<>();
        try (UnlockMessages unlocks = new UnlockMessages(admin, LockKeys.unlockChannel(name))) {
            a.getLock(name).lock();
            CompletableFuture<Void> bGot = waitInLine(b, name, order, "b");
            awaitInLine(admin, name, b.getId());
            CompletableFuture<Void> cGot = waitInLine(c, name, order, "c");
            awaitInLine(admin, name, b.getId(), c.getId());
            // in line is not yet parked: a waiter's attempt after its subscription may still be on its way,
            // and its PTTL is no failed attempt after the unlock. Nothing else runs a PTTL here (a's watchdog
            // renewal extends with PEXPIRE GT)
            CommandStats before = Quiet.commands(admin, "pttl");

            a.getLock(name).unlock();
            bGot.get(BOUND.toSeconds(), TimeUnit.SECONDS);
            cGot.get(BOUND.toSeconds(), TimeUnit.SECONDS);

            CommandStats used = CommandStats.delta(before, admin.commandStats());
            assertThat(order).containsExactly("b", "c");
            assertThat(used.calls("pttl")).as("failed attempts after the first unlock").isZero();
            // only c's unlock, with nobody left in line, publishes on the shared channel: every unlock has
            // been answered, so a fence published now reaches the listener after all their messages
            unlocks.fence(admin);
            assertThat(unlocks.count()).as("messages on the shared unlock channel").isEqualTo(1);
        }
        assertThat(admin.commands().keys("*" + name + "*")).as("keys left").isEmpty();
    }

    @Test
    void aClientFrozenWhileNextInLineDelaysTheLockByNoMoreThanItsGrantLease(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("grant-frozen");
        LockClient a = open();
        LockClient b = open();
        String frozenId = "frozen-" + java.util.UUID.randomUUID();
        // a frozen process (SIGSTOP, a long pause): in line, its connection up, its grant channel
        // subscribed, but it never takes the grant over
        RedisClient raw = RedisClient.create(admin.uri());
        try (StatefulRedisPubSubConnection<String, String> frozen = raw.connectPubSub()) {
            frozen.sync().subscribe(LockKeys.grantChannelPrefix(name) + frozenId);
            a.getLock(name).lock();
            admin.commands().set(LockKeys.waiterPlacePrefix(name) + frozenId, "1:" + GRANT_LEASE_MILLIS + ":1");
            admin.commands().rpush(LockKeys.waiterQueue(name), frozenId);
            CompletableFuture<Void> bGot = waitInLine(b, name, new CopyOnWriteArrayList<>(), "b");
            awaitInLine(admin, name, frozenId, b.getId());

            long unlockedAt = System.nanoTime();
            a.getLock(name).unlock();
            assertThat(admin.commands().hkeys(name)).as("granted to the frozen client").containsExactly(frozenId + ":1");
            bGot.get(GRANT_LEASE_MILLIS + BOUND.toMillis(), TimeUnit.MILLISECONDS);
            long delayMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - unlockedAt);
            System.out.printf("a client frozen next in line delayed the lock by %d ms (grant lease %d ms)%n",
                    delayMillis, GRANT_LEASE_MILLIS);
            // the grant lease and a wake-up when it works; the slack is generous for a busy machine and
            // still far from the 60 s b would wait without the grant lease's end
            assertThat(delayMillis).as("delay").isLessThan(GRANT_LEASE_MILLIS + 8_000);
        } finally {
            raw.shutdown();
        }
    }

    @Test
    void aClientGoneWhileInLineIsPassedOverAtOnce(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("grant-gone");
        LockClient a = open(LONG_COMMAND_TIMEOUT);
        LockClient gone = open(LONG_COMMAND_TIMEOUT);
        LockClient b = open(LONG_COMMAND_TIMEOUT);
        a.getLock(name).lock();
        CompletableFuture<Void> goneGot = waitInLine(gone, name, new CopyOnWriteArrayList<>(), "gone");
        awaitInLine(admin, name, gone.getId());
        CompletableFuture<Void> bGot = waitInLine(b, name, new CopyOnWriteArrayList<>(), "b");
        awaitInLine(admin, name, gone.getId(), b.getId());
        gone.close(); // its connections close, as a killed process's do; its place stays on Redis
        assertThat(goneGot).failsWithin(BOUND);

        long unlockedAt = System.nanoTime();
        a.getLock(name).unlock();
        // the unlock's own script call decided: a grant to the gone client would sit in the lock for its lease
        assertThat(admin.commands().hkeys(name)).as("nothing granted to the gone client")
                .noneMatch(field -> field.startsWith(gone.getId() + ":"));
        bGot.get(BOUND.toSeconds(), TimeUnit.SECONDS);
        long delayMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - unlockedAt);
        assertThat(delayMillis).as("nobody listened on its grant channel: passed over, no grant lease")
                .isLessThan(LONG_GRANT_LEASE_MILLIS / 2);
    }

    @Test
    void aGrantToAnOwnerWhoGaveUpIsPassedOn(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("grant-gave-up");
        LockClient a = open(LONG_COMMAND_TIMEOUT);
        LockClient b = open(LONG_COMMAND_TIMEOUT);
        a.getLock(name).lock();
        CompletableFuture<Boolean> shortWait = CompletableFuture.supplyAsync(() -> {
            try {
                return b.getLock(name).tryLock(300, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        awaitInLine(admin, name, b.getId());
        // its place stays after its wait ends only if the leave is lost; make it stay
        String place = admin.commands().get(LockKeys.waiterPlacePrefix(name) + b.getId());
        assertThat(shortWait.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isFalse();
        admin.commands().set(LockKeys.waiterPlacePrefix(name) + b.getId(), place);
        if (!admin.commands().lrange(LockKeys.waiterQueue(name), 0, -1).contains(b.getId())) {
            admin.commands().rpush(LockKeys.waiterQueue(name), b.getId());
        }
        // b still listens on its grant channel for a while (idle subscriptions linger)
        a.getLock(name).unlock();
        // well before the grant lease (20 s) would have freed it
        await().atMost(Duration.ofMillis(LONG_GRANT_LEASE_MILLIS / 2)).until(() -> admin.commands().exists(name) == 0);
        assertThat(a.getLock(name).tryLock()).isTrue();
        a.getLock(name).unlock();
    }

    private LockClient open() {
        return open(COMMAND_TIMEOUT);
    }

    private LockClient open(Duration commandTimeout) {
        return clients.open(builder -> builder.commandTimeout(commandTimeout));
    }

    /** Starts a thread of {@code client} that locks {@code name}, notes {@code label}, and unlocks. */
    private static CompletableFuture<Void> waitInLine(LockClient client, String name, List<String> order,
            String label) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                RLock lock = client.getLock(name);
                if (!lock.tryLock(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException(label + " did not get the lock");
                }
                order.add(label);
                lock.unlock();
                done.complete(null);
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        }, "waiter-" + label);
        thread.setDaemon(true);
        thread.start();
        return done;
    }

    private static void awaitInLine(RedisAdmin admin, String name, String... clientIds) {
        await().atMost(BOUND)
                .until(() -> admin.commands().lrange(LockKeys.waiterQueue(name), 0, -1), line -> line.equals(List.of(clientIds)));
    }

    /** Counts the messages on one channel. */
    private static final class UnlockMessages implements AutoCloseable {
        private final RedisClient client;
        private final StatefulRedisPubSubConnection<String, String> connection;
        private final String channel;
        private final String fence = "fence-" + java.util.UUID.randomUUID();
        private final java.util.concurrent.atomic.AtomicInteger count = new java.util.concurrent.atomic.AtomicInteger();
        private final java.util.concurrent.CountDownLatch fenced = new java.util.concurrent.CountDownLatch(1);

        UnlockMessages(RedisAdmin admin, String channel) {
            this.channel = channel;
            client = RedisClient.create(admin.uri());
            connection = client.connectPubSub();
            connection.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String ch, String message) {
                    if (message.equals(fence)) {
                        fenced.countDown();
                    } else {
                        count.incrementAndGet();
                    }
                }
            });
            connection.sync().subscribe(channel);
        }

        /** The messages but the fence. */
        int count() {
            return count.get();
        }

        /**
         * Publishes a fence and waits for it: Redis delivers a channel's messages in the order it ran
         * their publishes, so every message published before this call has been counted after it.
         */
        void fence(RedisAdmin admin) throws InterruptedException {
            admin.commands().publish(channel, fence);
            assertThat(fenced.await(BOUND.toSeconds(), TimeUnit.SECONDS)).as("the fence came through").isTrue();
        }

        @Override
        public void close() {
            connection.close();
            client.shutdown();
        }
    }
}
