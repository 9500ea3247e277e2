package dev.padlock.tests.kinds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RLock;
import dev.padlock.testing.CommandStats;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisServers;
import dev.padlock.tests.support.Clients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The red lock over three independent redis-server processes, some of them stopped or paused. */
class RedLockTest {
    private static final int SERVERS = 3;

    private RedisServers servers;
    private final List<LockClient> clients = new ArrayList<>();
    private final List<RedisAdmin> admins = new ArrayList<>();
    private String name;

    @BeforeEach
    void start() {
        servers = RedisServers.start(SERVERS);
        name = Clients.uniqueName("red");
    }

    @AfterEach
    void stop() {
        clients.forEach(LockClient::close);
        admins.forEach(RedisAdmin::close);
        servers.close();
    }

    /** One client a server, each with a 500 ms command timeout unless given. */
    private List<LockClient> openClients(Duration... commandTimeouts) {
        List<LockClient> opened = new ArrayList<>();
        for (int i = 0; i < SERVERS; i++) {
            Duration timeout = i < commandTimeouts.length ? commandTimeouts[i] : Duration.ofMillis(500);
            LockClient client = LockClient.create(LockConfig.builder().redisUri(servers.uris().get(i))
                    .commandTimeout(timeout).build());
            Clients.awaitRegistered(client); // its registry write is not a script call the tests count
            clients.add(client);
            opened.add(client);
        }
        return opened;
    }

    private RLock redLock(List<LockClient> over) {
        return over.get(0).getRedLock(over.stream().map(client -> client.getLock(name)).toArray(RLock[]::new));
    }

    private RedisAdmin admin(int server) {
        while (admins.size() <= server) {
            admins.add(servers.endpoints().get(admins.size()).admin());
        }
        return admins.get(server);
    }

    private long keysOn(int... servers) {
        long count = 0;
        for (int server : servers) {
            count += admin(server).commands().exists(name);
        }
        return count;
    }

    @Test
    void withAllServersUpItIsHeldOnAllAndReleasedEverywhere() throws Exception {
        RLock red = redLock(openClients());
        assertThat(red.getName()).isEqualTo("red[" + name + "," + name + "," + name + "]");
        assertThat(red.tryLock(2, 10, TimeUnit.SECONDS)).isTrue();
        assertThat(keysOn(0, 1, 2)).as("the key on all three servers").isEqualTo(3);
        assertThat(red.isLocked()).isTrue();
        assertThat(red.isHeldByCurrentThread()).isTrue();
        assertThat(red.getHoldCount()).isEqualTo(1);
        assertThat(red.remainTimeToLive()).isBetween(1L, 10_000L);
        red.unlock();
        assertThat(keysOn(0, 1, 2)).as("released everywhere").isZero();
        assertThat(red.isLocked()).isFalse();
        assertThat(red.remainTimeToLive()).isEqualTo(-2L);
        assertThatThrownBy(red::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void withOneServerStoppedItIsStillHeldByTheMajority() throws Exception {
        RLock red = redLock(openClients());
        servers.get(2).stop();
        long start = System.nanoTime();
        assertThat(red.tryLock(3, 10, TimeUnit.SECONDS)).isTrue();
        assertThat(elapsedMillis(start)).as("a bound that catches a hang, generous for a busy machine").isLessThan(10_000);
        assertThat(keysOn(0, 1)).isEqualTo(2);
        assertThat(red.isHeldByCurrentThread()).as("a majority answers and says so").isTrue();
        red.unlock();
        assertThat(keysOn(0, 1)).as("released on every running server").isZero();
    }

    @Test
    void withTwoServersStoppedItIsRefusedWithinABoundAndLeavesNoKey() throws Exception {
        RLock red = redLock(openClients());
        servers.get(1).stop();
        servers.get(2).stop();
        long start = System.nanoTime();
        assertThat(red.tryLock(1, 10, TimeUnit.SECONDS)).isFalse();
        long elapsed = elapsedMillis(start);
        System.out.printf("red tryLock(1 s) with two of three servers down gave up after %d ms%n", elapsed);
        // never before its wait is over; the upper bound catches a hang, generous for a busy machine
        assertThat(elapsed).isGreaterThanOrEqualTo(1_000).isLessThan(10_000);
        assertThat(keysOn(0)).as("the running server was released").isZero();
        assertThat(red.tryLock()).isFalse();
        // with both stopped servers refusing at once, the round may close before the running server's
        // reply comes: that late hold is given back as it comes, so wait for it (a bound that catches a hang)
        await().atMost(Duration.ofSeconds(30)).until(() -> keysOn(0) == 0);
    }

    @Test
    void aLockHeldByAnotherClientOnTwoOfThreeServersIsRefused() throws Exception {
        RLock red = redLock(openClients());
        List<LockClient> others = openClients();
        others.get(0).getLock(name).lock(30, TimeUnit.SECONDS);
        others.get(1).getLock(name).lock(30, TimeUnit.SECONDS);
        long start = System.nanoTime();
        assertThat(red.tryLock(500, 10_000, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(elapsedMillis(start)).isGreaterThanOrEqualTo(500).isLessThan(10_000); // as above
        assertThat(keysOn(2)).as("the free server was given back").isZero();
        assertThat(admin(0).commands().hlen(name) + admin(1).commands().hlen(name)).as("only the other holder")
                .isEqualTo(2);
        assertThat(red.isLocked()).as("a majority is locked, by the other client").isTrue();
        assertThat(red.isHeldByCurrentThread()).isFalse();
        assertThatThrownBy(red::unlock).isInstanceOf(IllegalMonitorStateException.class);

        others.get(1).getLock(name).unlock();
        assertThat(red.tryLock(2, 10, TimeUnit.SECONDS)).isTrue();
        assertThat(keysOn(1, 2)).isEqualTo(2);
        red.unlock();
        assertThat(keysOn(1, 2)).isZero();
        assertThat(admin(0).commands().hlen(name)).as("the other holder's lock is untouched").isEqualTo(1);
        others.get(0).getLock(name).unlock();
    }

    @Test
    void aReplyThatComesAfterItsRoundIsGivenBack() throws Exception {
        RLock red = redLock(openClients(Duration.ofMillis(500), Duration.ofMillis(500), Duration.ofSeconds(5)));
        long scriptsBefore = scriptCalls(2);
        long writesBefore = admin(2).commandStats().calls("hset");
        servers.get(2).pause();
        try {
            // lease 5 s: the round closes after 500 ms, with the paused server's reply still out
            assertThat(red.tryLock(2, 5, TimeUnit.SECONDS)).isTrue();
            assertThat(keysOn(0, 1)).isEqualTo(2);
        } finally {
            servers.get(2).resume();
        }
        // the late claim landed (it wrote the hash) and was given back (the key is gone), in either order of
        // their counts: a NOSCRIPT answer on the fresh server counts a script call of its own
        await().atMost(Duration.ofSeconds(30)).until(() -> scriptCalls(2) - scriptsBefore >= 2
                && admin(2).commandStats().calls("hset") > writesBefore && keysOn(2) == 0);
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(10)).until(() -> keysOn(2) == 0);
        assertThat(red.isHeldByCurrentThread()).isTrue();
        red.unlock();
        assertThat(keysOn(0, 1, 2)).isZero();
    }

    @Test
    void anInterruptedLockInterruptiblyThrowsAndLeavesNothingBehind() throws Exception {
        RLock red = redLock(openClients());
        List<LockClient> others = openClients();
        others.get(0).getLock(name).lock(30, TimeUnit.SECONDS);
        others.get(1).getLock(name).lock(30, TimeUnit.SECONDS);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread thread = new Thread(() -> {
            try {
                red.lockInterruptibly();
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        thread.start();
        // the other client's two 30 s holds keep it waiting: a state, not a race
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(10)).until(thread::isAlive);
        thread.interrupt();
        thread.join(30_000);
        assertThat(thread.isAlive()).isFalse();
        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
        assertThat(keysOn(2)).as("the free server was given back before the throw").isZero();
        assertThat(admin(0).commands().hlen(name) + admin(1).commands().hlen(name)).isEqualTo(2);
    }

    @Test
    void theAsynchronousTwinsWorkForAnExplicitOwner() throws Exception {
        RLock red = redLock(openClients());
        RLock rival = redLock(openClients());
        assertThat(red.tryLockAsync(0, 10, TimeUnit.SECONDS, 7L).get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(red.getHoldCountAsync(7L).get(5, TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(red.isLockedAsync().get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(rival.tryLockAsync(0, 10, TimeUnit.SECONDS, 7L).get(5, TimeUnit.SECONDS)).isFalse();
        assertThat(red.unlockAsync(8L)).failsWithin(5, TimeUnit.SECONDS)
                .withThrowableOfType(ExecutionException.class).withCauseInstanceOf(IllegalMonitorStateException.class);

        CompletableFuture<Void> waiting = rival.lockAsync(10, TimeUnit.SECONDS, 9L);
        await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(10)).until(() -> !waiting.isDone());
        red.unlockAsync(7L).get(5, TimeUnit.SECONDS);
        waiting.get(30, TimeUnit.SECONDS);
        assertThat(rival.isHeldByThread(9L)).isTrue();
        assertThat(red.forceUnlockAsync().get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(keysOn(0, 1, 2)).isZero();
        assertThat(rival.forceUnlock()).isFalse();
    }

    @Test
    void aLeaseIsHeldOnAMajorityAndSafeForTheShortestOfItsLocks() throws Exception {
        RLock red = redLock(openClients());
        dev.padlock.LockLease lease = red.acquire(Duration.ofSeconds(10));
        assertThat(keysOn(0, 1, 2)).isEqualTo(3);
        assertThat(lease.isHeld()).isTrue();
        assertThat(lease.safeFor()).isPositive().isLessThan(Duration.ofSeconds(10));
        assertThat(redLock(openClients()).tryAcquire(Duration.ZERO)).isEmpty();
        CompletableFuture.runAsync(lease::release).get(5, TimeUnit.SECONDS);
        assertThat(keysOn(0, 1, 2)).isZero();
        assertThat(lease.safeFor()).isZero();
    }

    @Test
    void badInputFailsAtTheCall() {
        List<LockClient> over = openClients();
        RLock one = over.get(0).getLock(name);
        RLock red = redLock(over);
        assertThatThrownBy(() -> over.get(0).getRedLock((RLock[]) null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> over.get(0).getRedLock(one, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> over.get(0).getRedLock()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> over.get(0).getRedLock(one, one)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> red.tryLock(-1, TimeUnit.SECONDS)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> red.tryLock(1, 1, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> red.lock(1, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> red.tryLockAsync(-1, 1, TimeUnit.SECONDS, 1L))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> red.lockAsync(1, null, 1L)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(red::newCondition).isInstanceOf(UnsupportedOperationException.class);
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> red.tryLock(1, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        assertThat(Thread.interrupted()).isFalse();
        assertThat(keysOn(0, 1, 2)).isZero();
    }

    /** Scripts run on a server: each acquire and each release is one. */
    private long scriptCalls(int server) {
        CommandStats stats = admin(server).commandStats();
        return stats.calls("eval") + stats.calls("evalsha");
    }

    private static long elapsedMillis(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }
}
