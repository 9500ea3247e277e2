package dev.padlock.tests.topology;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RFencedLock;
import dev.padlock.RLock;
import dev.padlock.RedisCommandException;
import dev.padlock.ReplicaAcknowledgementException;
import dev.padlock.tests.support.Clients;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisServerProcess;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code replicaAcknowledgement}: an acquisition counts once the replicas have it, and not before. */
class ReplicaAcknowledgementTest {
    private static RedisServerProcess master;
    private static RedisServerProcess replica;
    private static RedisAdmin masterAdmin;
    private static RedisAdmin replicaAdmin;

    @BeforeAll
    static void startMasterAndReplica() {
        master = RedisServerProcess.start();
        replica = RedisServerProcess.start("--replicaof", RedisServerProcess.HOST, Integer.toString(master.port()));
        masterAdmin = RedisAdmin.connect(master.uri());
        replicaAdmin = RedisAdmin.connect(replica.uri());
        await().atMost(Duration.ofSeconds(20)).until(() -> "up".equals(replicaAdmin.infoField("replication", "master_link_status")));
    }

    @AfterAll
    static void stop() {
        replicaAdmin.close();
        masterAdmin.close();
        replica.close();
        master.close();
    }

    @Test
    void anAcknowledgedLockIsOnTheReplicaWhenLockReturns() {
        String name = Clients.uniqueName("acked");
        try (LockClient client = LockClient.create(LockConfig.builder().redisUri(master.uri())
                .replicaAcknowledgement(1, Duration.ofSeconds(2)).build())) {
            RLock lock = client.getLock(name);
            lock.lock();
            assertThat(replicaAdmin.commands().hget(name, client.getId() + ":" + Thread.currentThread().getId()))
                    .as("the replica has the hold as soon as lock() returned").isEqualTo("1");
            RFencedLock fenced = client.getFencedLock(name + ":fenced");
            long token = fenced.lockAndGetToken();
            assertThat(replicaAdmin.commands().get("redisson_lock_token:{" + name + ":fenced}")).isEqualTo(Long.toString(token));
            fenced.unlock();
            lock.unlock();
        }
    }

    /**
     * A server without {@code WAIT} (ElastiCache Serverless, some proxies), here an ACL user denied
     * it: the first connection fails and names the setting, rather than every acquisition.
     */
    @Test
    void aServerThatRefusesWaitFailsTheFirstConnectionNamingTheSetting() {
        PadlockAcl.setUser(masterAdmin, "nowait", "nowait-pw", "~* &* +@all -wait");
        String uri = PadlockAcl.withUser(master.uri(), "nowait", "nowait-pw");
        assertThatThrownBy(() -> LockClient.create(LockConfig.builder().redisUri(uri)
                .replicaAcknowledgement(1, Duration.ofSeconds(1)).build()))
                .isInstanceOf(RedisCommandException.class)
                .hasMessageContaining("replicaAcknowledgement(1, PT1S)")
                .hasMessageContaining("refused it")
                .hasMessageContaining("+wait")
                .hasMessageContaining(Integer.toString(master.port()));
        // the same user without the setting locks as usual
        try (LockClient client = LockClient.create(LockConfig.builder().redisUri(uri).build())) {
            RLock lock = client.getLock(Clients.uniqueName("no-wait"));
            lock.lock();
            lock.unlock();
        }
    }

    @Test
    void tooFewAcknowledgementsFailTheAcquisitionAndLeaveNothingHeld() {
        String name = Clients.uniqueName("unacked");
        try (LockClient client = LockClient.create(LockConfig.builder().redisUri(master.uri())
                .replicaAcknowledgement(2, Duration.ofMillis(300)).build())) {
            RLock lock = client.getLock(name);
            long start = System.nanoTime();
            assertThatThrownBy(lock::lock).isInstanceOf(ReplicaAcknowledgementException.class)
                    .hasMessageContaining(name).hasMessageContaining("1 of 2");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(10_000);
            assertThat(masterAdmin.commands().exists(name)).as("released again").isZero();
            assertThat(lock.isLocked()).isFalse();
        }
    }

    @Test
    void aPausedReplicaTimesTheAcknowledgementOut() throws Exception {
        String name = Clients.uniqueName("paused-replica");
        try (LockClient client = LockClient.create(LockConfig.builder().redisUri(master.uri())
                .replicaAcknowledgement(1, Duration.ofMillis(300)).build())) {
            RLock lock = client.getLock(name);
            replica.pause();
            try {
                assertThatThrownBy(() -> lock.tryLock(0, 10, TimeUnit.SECONDS))
                        .isInstanceOf(ReplicaAcknowledgementException.class).hasMessageContaining("0 of 1");
            } finally {
                replica.resume();
            }
            assertThat(masterAdmin.commands().exists(name)).isZero();
            // fine again once the replica is back: a resumed replica on a busy machine may still
            // miss the 300 ms for an acknowledgement or two (each released again), so try until one lands
            await().atMost(Duration.ofSeconds(20)).pollInSameThread() // the lock belongs to this thread
                    .ignoreException(ReplicaAcknowledgementException.class)
                    .until(() -> lock.tryLock(5, 10, TimeUnit.SECONDS));
            assertThat(lock.isHeldByCurrentThread()).as("fine again once the replica is back").isTrue();
            lock.unlock();
        }
    }
}
