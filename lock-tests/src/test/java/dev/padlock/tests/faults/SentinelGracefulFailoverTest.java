package dev.padlock.tests.faults;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RLock;
import dev.padlock.tests.support.Clients;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisSentinelSetup;
import dev.padlock.testing.RedisServerProcess;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 9, defect 5: after a graceful {@code SENTINEL FAILOVER} the old master stays up, still a
 * master, until the Sentinels turn it into a replica 8 to 10 s later. A client that kept writing
 * to it acquired locks there that were gone once it resynced. A client must follow the Sentinels'
 * {@code +switch-master} instead, its pub/sub connection included.
 */
@Tag("faults")
class SentinelGracefulFailoverTest {
    /** The client moves within a second; the rest is slack for a loaded two-core machine. */
    private static final Duration FOLLOW = Duration.ofSeconds(3);
    private static final Duration LEASE = Duration.ofSeconds(60);
    private static final Duration RESYNC = Duration.ofSeconds(30);

    private RedisSentinelSetup sentinel;
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @BeforeEach
    void start() {
        sentinel = RedisSentinelSetup.start();
    }

    @AfterEach
    void stop() {
        pool.shutdownNow();
        sentinel.close();
    }

    @Test
    void clientFollowsSwitchMasterWhileOldMasterStaysUp() throws Exception {
        RedisServerProcess oldMaster = sentinel.master();
        try (LockClient client = LockClient.create(config().build());
                RedisAdmin oldNode = sentinel.admin(oldMaster);
                RedisAdmin newNode = sentinel.admin(sentinel.replica())) {
            String field = client.getId() + ":" + Thread.currentThread().getId();
            RLock before = client.getLock(Clients.uniqueName("sentinel-graceful-before"));
            assertThat(before.tryLock()).isTrue();
            before.unlock();

            long start = System.nanoTime();
            sentinel.failover();
            long switched = System.nanoTime();
            assertThat(oldNode.commands().info("replication")).as("the old master is still up and a master")
                    .contains("role:master");

            RLock onNewMaster = awaitLockOnNewMaster(client, field, newNode);
            long now = System.nanoTime();
            System.out.printf("graceful failover: a new lock landed on the new master %d ms after SENTINEL FAILOVER,"
                    + " %d ms after every Sentinel named it%n", millis(now - start), millis(now - switched));
            assertThat(oldNode.commands().hexists(onNewMaster.getName(), field)).as("not on the old master").isFalse();

            sentinel.awaitReplicaInSync(RESYNC); // the Sentinels made the old master a replica of the new one
            assertThat(newNode.commands().hexists(onNewMaster.getName(), field)).isTrue();
            assertThat(onNewMaster.isHeldByCurrentThread()).as("still held after the old master resynced").isTrue();
            onNewMaster.unlock();
            assertThat(newNode.commands().exists(onNewMaster.getName())).isZero();
        }
    }

    @Test
    void waiterBlockedDuringTheSwitchAcquiresOnTheNewMaster() throws Exception {
        String name = Clients.uniqueName("sentinel-graceful-wait");
        try (LockClient holder = LockClient.create(config().build());
                LockClient waiting = LockClient.create(config().build());
                RedisAdmin oldNode = sentinel.admin(sentinel.master());
                RedisAdmin newNode = sentinel.admin(sentinel.replica())) {
            RLock held = holder.getLock(name);
            held.lock(LEASE.toSeconds(), TimeUnit.SECONDS); // no renewals: only the unlock lets the waiter in
            String holderField = holder.getId() + ":" + Thread.currentThread().getId();
            await("the lock is replicated").atMost(FOLLOW).until(() -> newNode.commands().hexists(name, holderField));
            String channel = "redisson_lock__channel:{" + name + "}";
            CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
                RLock wanted = waiting.getLock(name);
                try {
                    if (!wanted.tryLock(LEASE.toSeconds() + 30, LEASE.toSeconds(), TimeUnit.SECONDS)) {
                        throw new AssertionError("the waiter never got the lock");
                    }
                    String field = waiting.getId() + ":" + Thread.currentThread().getId();
                    boolean onNewMaster = newNode.commands().hexists(name, field);
                    wanted.unlock();
                    return onNewMaster;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }, pool);
            await("the waiter subscribes on the old master").atMost(FOLLOW)
                    .until(() -> oldNode.commands().pubsubChannels(channel).contains(channel));

            sentinel.failover();
            await("the waiter's subscription moves to the new master").atMost(FOLLOW)
                    .until(() -> newNode.commands().pubsubChannels(channel).contains(channel));
            // the holder's client must be on the new master too before it unlocks there
            awaitLockOnNewMaster(holder, holderField, newNode);

            long unlocked = System.nanoTime();
            held.unlock();
            assertThat(waiter.get(FOLLOW.toMillis(), TimeUnit.MILLISECONDS)).as("the waiter's lock is on the new master")
                    .isTrue();
            System.out.printf("graceful failover: the waiter got the lock %d ms after the unlock%n",
                    millis(System.nanoTime() - unlocked));
        }
    }

    /**
     * Polls with fresh locks (60 s leases, no renewals) until one of {@code client}'s lands on the
     * new master; those that land on the old master vanish when it resyncs.
     */
    private static RLock awaitLockOnNewMaster(LockClient client, String field, RedisAdmin newNode) {
        AtomicReference<RLock> found = new AtomicReference<>();
        await("a new lock of the client on the new master").atMost(FOLLOW).pollInterval(Duration.ofMillis(20))
                .pollInSameThread().until(() -> {
                    RLock lock = client.getLock(Clients.uniqueName("sentinel-graceful-probe"));
                    assertThat(lock.tryLock(0, LEASE.toSeconds(), TimeUnit.SECONDS)).isTrue();
                    if (newNode.commands().hexists(lock.getName(), field)) {
                        found.set(lock);
                        return true;
                    }
                    return false;
                });
        return found.get();
    }

    private LockConfig.Builder config() {
        return LockConfig.builder().redisUri(sentinel.sentinelUri()).commandTimeout(Duration.ofSeconds(1));
    }

    private static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
