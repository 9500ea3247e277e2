package dev.padlock.tests.faults;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RFencedLock;
import dev.padlock.tests.support.Clients;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisServerProcess;
import dev.padlock.testing.junit.RedisTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fencing tokens that never go backwards on the day Redis loses the counter: a restart without
 * persistence, a deleted or flushed counter, a failover to a replica that lacked the last
 * increments. The acquire script raises the counter to the server's clock in microseconds before
 * it increments, so every token is above every one handed out before (clocks not going back).
 */
@RedisTest(controllable = true)
@Tag("faults")
class FencingTokenRecoveryTest {
    private static final Duration RECONNECT = Duration.ofSeconds(20);

    @RegisterExtension
    final Clients clients = new Clients();

    @Test
    void aTokenAfterARestartThatLostTheDataIsAboveEveryEarlierToken(RedisServerProcess server, RedisAdmin admin) {
        String name = Clients.uniqueName("fenced-restart");
        RFencedLock lock = clients.open().getFencedLock(name);
        long highest = takeTokens(lock, 5);

        server.restart(); // no persistence: the counter and the lock are gone
        await().atMost(RECONNECT).ignoreExceptions().until(admin::ping);
        assertThat(admin.commands().exists("redisson_lock_token:{" + name + "}")).as("data lost").isZero();

        Long after = await().atMost(RECONNECT).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                .until(() -> lock.tryLockAndGetToken(0, 30_000, TimeUnit.MILLISECONDS), token -> token != null);
        assertThat(after).as("first token after the restart").isGreaterThan(highest);
        lock.forceUnlock();
        assertThat(takeTokens(lock, 1)).isGreaterThan(after);
    }

    @Test
    void aTokenIsAtLeastTheServersClockInMicroseconds(RedisAdmin admin) throws Exception {
        RFencedLock lock = clients.open().getFencedLock(Clients.uniqueName("fenced-clock"));
        long before = serverMicros(admin);
        long token = lock.lockAndGetToken();
        assertThat(lock.tryLockAndGetToken(0, -1, TimeUnit.MILLISECONDS)).as("a re-entry keeps it").isEqualTo(token);
        lock.unlock();
        lock.unlock();
        assertThat(token).isGreaterThan(before).isLessThanOrEqualTo(serverMicros(admin) + 1);
    }

    @Test
    void aDeletedCounterNeverGivesATokenTwiceNorALowerOne(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("fenced-deleted");
        String counter = "redisson_lock_token:{" + name + "}";
        RFencedLock one = clients.open().getFencedLock(name);
        RFencedLock two = clients.open().getFencedLock(name);
        AtomicLong lastSeen = new AtomicLong(Long.MIN_VALUE);
        AtomicLong refused = new AtomicLong();
        Set<Long> seen = ConcurrentHashMap.newKeySet();
        AtomicLong duplicates = new AtomicLong();
        AtomicBoolean running = new AtomicBoolean(true);
        int threads = 4;
        int rounds = 30;
        ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
        try {
            Future<Integer> deleter = pool.submit(() -> {
                int deletions = 0;
                for (int i = 0; i < 50 && running.get(); i++) { // bounded: at most 50 deletions
                    deletions += admin.commands().del(counter).intValue();
                    Thread.sleep(5);
                }
                return deletions;
            });
            List<Future<?>> holders = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                RFencedLock lock = t % 2 == 0 ? one : two;
                holders.add(pool.submit(() -> {
                    for (int i = 0; i < rounds; i++) {
                        long token = lock.lockAndGetToken();
                        try {
                            // a fenced resource: accept only a token above the last one it saw
                            if (token <= lastSeen.getAndSet(token)) {
                                refused.incrementAndGet();
                            }
                            if (!seen.add(token)) {
                                duplicates.incrementAndGet();
                            }
                        } finally {
                            lock.unlock();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> holder : holders) {
                holder.get(60, TimeUnit.SECONDS);
            }
            running.set(false);
            assertThat(deleter.get(10, TimeUnit.SECONDS)).as("the counter was deleted under the holders").isPositive();
        } finally {
            running.set(false);
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(refused).as("tokens not above the last one seen").hasValue(0);
        assertThat(duplicates).hasValue(0);
        assertThat(seen).hasSize(threads * rounds);

        admin.flushAll(); // everything lost at once
        long afterFlush = one.lockAndGetToken();
        one.unlock();
        assertThat(afterFlush).isGreaterThan(lastSeen.get());
    }

    @Test
    void aFailoverToAReplicaThatLackedTheLastIncrementsKeepsTokensRising(RedisServerProcess master)
            throws Exception {
        String name = Clients.uniqueName("fenced-failover");
        String counter = "redisson_lock_token:{" + name + "}";
        try (RedisServerProcess replica = RedisServerProcess.start(
                        "--replicaof", RedisServerProcess.HOST, Integer.toString(master.port()));
                RedisAdmin replicaAdmin = RedisAdmin.connect(replica.uri());
                LockClient onReplica = LockClient.create(LockConfig.builder().redisUri(replica.uri()).build())) {
            await().atMost(RECONNECT).until(() -> "up".equals(replicaAdmin.infoField("replication", "master_link_status")));
            RFencedLock onMaster = clients.open().getFencedLock(name);
            long replicated = takeTokens(onMaster, 3);
            // the script's effects replicate: the replica gets the master's counter (WAIT on the
            // admin's connection would not wait for the lock client's writes)
            await("the replica has the master's counter").atMost(RECONNECT)
                    .until(() -> Long.toString(replicated).equals(replicaAdmin.commands().get(counter)));

            replicaAdmin.commands().replicaofNoOne(); // promoted: it will miss what follows
            long highest = takeTokens(onMaster, 3);
            assertThat(highest).isGreaterThan(replicated);
            assertThat(replicaAdmin.commands().get(counter)).as("the replica lacks the last increments")
                    .isEqualTo(Long.toString(replicated));

            RFencedLock afterFailover = onReplica.getFencedLock(name);
            long token = afterFailover.lockAndGetToken();
            afterFailover.unlock();
            assertThat(token).as("first token on the promoted replica").isGreaterThan(highest);
        }
    }

    /** Takes and releases {@code count} tokens, checking that they rise; returns the last. */
    private static long takeTokens(RFencedLock lock, int count) {
        long last = Long.MIN_VALUE;
        for (int i = 0; i < count; i++) {
            long token = lock.lockAndGetToken();
            lock.unlock();
            assertThat(token).isGreaterThan(last);
            last = token;
        }
        return last;
    }

    private static long serverMicros(RedisAdmin admin) {
        List<String> time = admin.commands().time();
        return Long.parseLong(time.get(0)) * 1_000_000L + Long.parseLong(time.get(1));
    }
}
