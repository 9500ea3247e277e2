package dev.padlock.tests.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RFencedLock;
import dev.padlock.RLock;
import dev.padlock.RedisCommandException;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisServerProcess;
import dev.padlock.testing.junit.RedisTest;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A client whose ACL user may touch only the lock keys and channels of its prefix
 * ({@link PadlockAcl#rule}): every lock kind works and Redis denies nothing, and a user that lacks
 * a permission gets a clear exception that names the address and the operation, at once, not a
 * hang and not "not acquired". Redis 6.2 and 7 both have ACLs with channel rules.
 */
@RedisTest(controllable = true)
class AclTest {
    private static final String PASSWORD = "padlock-secret";
    /** What a whole scenario is given: catches a hang, not a slow machine. */
    private static final Duration BOUND = Duration.ofSeconds(60);

    private RedisAdmin admin;
    private String plainUri;

    @BeforeEach
    void open(RedisServerProcess server, RedisAdmin admin) {
        this.admin = admin;
        this.plainUri = server.uri();
        admin.commands().aclLogReset();
    }

    @Test
    void theMinimalRuleIsEnoughForEveryLockKind() {
        PadlockAcl.setUser(admin, "orders-app", PASSWORD, PadlockAcl.rule("orders:"));
        assertTimeoutPreemptively(BOUND, () -> {
            try (LockClient one = connect("orders-app"); LockClient two = connect("orders-app")) {
                AclScenarios.exerciseEveryKind(one, two, "orders:" + java.util.UUID.randomUUID());
            }
        });
        assertThat(PadlockAcl.denials(admin)).as("ACL LOG: what Redis denied the user").isEmpty();
    }

    @Test
    void theSemaphoreAdditionsAreEnoughForBothSemaphores() {
        // as docs/operating/tls-and-acl.md says: the semaphores' channel and the commands their scripts add
        PadlockAcl.setUser(admin, "orders-app", PASSWORD, PadlockAcl.rule("orders:")
                + " &redisson_sc:{orders:* +incrby +decrby +zrange +zrangebyscore");
        assertTimeoutPreemptively(BOUND, () -> {
            try (LockClient one = connect("orders-app"); LockClient two = connect("orders-app")) {
                String name = "orders:" + java.util.UUID.randomUUID();
                dev.padlock.RSemaphore counted = one.getSemaphore(name + ":counted");
                assertThat(counted.trySetPermits(1)).isTrue();
                assertThat(counted.tryAcquire()).isTrue();
                java.util.concurrent.CompletableFuture<Void> waiting = two.getSemaphore(name + ":counted").acquireAsync(1);
                String channel = dev.padlock.spi.LockKeys.semaphoreChannel(name + ":counted");
                org.awaitility.Awaitility.await("the waiter subscribed").atMost(BOUND)
                        .until(() -> admin.commands().pubsubNumsub(channel).getOrDefault(channel, 0L) >= 1);
                counted.release();
                waiting.get(BOUND.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
                counted.addPermits(2);
                assertThat(counted.drainPermits()).isEqualTo(2);

                dev.padlock.RPermitExpirableSemaphore leased = one.getPermitExpirableSemaphore(name + ":leased");
                assertThat(leased.trySetPermits(1)).isTrue();
                dev.padlock.PermitLease permit = leased.acquire();
                java.util.concurrent.CompletableFuture<dev.padlock.PermitLease> next =
                        two.getPermitExpirableSemaphore(name + ":leased").acquireAsync();
                permit.release();
                next.get(BOUND.toSeconds(), java.util.concurrent.TimeUnit.SECONDS).release();
                assertThat(leased.availablePermits()).isEqualTo(1);
            }
        });
        assertThat(PadlockAcl.denials(admin)).as("ACL LOG: what Redis denied the user").isEmpty();
    }

    @Test
    void aLockOutsideTheUsersKeysFailsAtOnceNamingTheAddressAndTheOperation() {
        PadlockAcl.setUser(admin, "orders-app", PASSWORD, PadlockAcl.rule("orders:"));
        assertTimeoutPreemptively(BOUND, () -> {
            try (LockClient client = connect("orders-app")) {
                RLock lock = client.getLock("billing:1");
                assertThatThrownBy(lock::tryLock).isInstanceOf(RedisCommandException.class)
                        .hasMessageContaining("billing:1")
                        .hasMessageContaining("lock_claim")
                        .hasMessageContaining("127.0.0.1:" + port())
                        .hasMessageContaining("NOPERM")
                        .hasMessageNotContaining(PASSWORD);
                assertThatThrownBy(() -> lock.tryLock(1, TimeUnit.SECONDS)).isInstanceOf(RedisCommandException.class);
                assertThatThrownBy(lock::isLocked).isInstanceOf(RedisCommandException.class)
                        .hasMessageContaining("NOPERM");
            }
        });
        assertThat(admin.commands().exists("billing:1")).isZero();
    }

    @Test
    void aUserWithoutScriptsFailsAtOnceNamingTheOperation() {
        PadlockAcl.setUser(admin, "no-scripts", PASSWORD, PadlockAcl.rule("orders:").replace("+evalsha +eval ", ""));
        assertTimeoutPreemptively(BOUND, () -> {
            try (LockClient client = connect("no-scripts")) {
                RFencedLock lock = client.getFencedLock("orders:no-scripts");
                assertThatThrownBy(lock::lockAndGetToken).isInstanceOf(RedisCommandException.class)
                        .hasMessageContaining("orders:no-scripts")
                        .hasMessageContaining("127.0.0.1:" + port())
                        .hasMessageContaining("NOPERM");
            }
        });
    }

    /**
     * Without the channels a waiter cannot be woken by unlock messages; today it falls back to
     * polling (every 100 ms, as during a pub/sub outage) and the client logs the refused SUBSCRIBE
     * at WARN, naming the address and the channel. It is not told by an exception: the wait loop
     * treats a failed SUBSCRIBE as an outage to ride through. This pins that it neither hangs nor
     * misses the lock. Its last unlock publishes nothing while nobody listens; with a listener, the
     * script's PUBLISH is refused, the script goes on past it and the unlock succeeds (the client
     * says so once at WARN), and the listener finds the lock free at its next look.
     * {@link AclWithoutChannelsTest} goes through every kind.
     */
    @Test
    void aWaiterWhoseUserMayNotSubscribeStillGetsTheLockByPolling() {
        PadlockAcl.setUser(admin, "no-channels", PASSWORD,
                PadlockAcl.rule("orders:").replaceAll("&\\S+", ""));
        String name = "orders:no-channels";
        assertTimeoutPreemptively(BOUND, () -> {
            try (LockClient holderClient = LockClient.connect(plainUri); LockClient client = connect("no-channels")) {
                RLock held = holderClient.getLock(name);
                held.lockAsync(10, TimeUnit.SECONDS, 1L).get(5, TimeUnit.SECONDS);
                RLock waiter = client.getLock(name);
                assertThat(waiter.tryLockAsync(500, 10_000, TimeUnit.MILLISECONDS, 2L).get(5, TimeUnit.SECONDS))
                        .as("held by the other client all along").isFalse();
                CompletableFuture<Boolean> waiting = waiter.tryLockAsync(15_000, 10_000, TimeUnit.MILLISECONDS, 2L);
                // the other client's 10 s lease keeps it out: a state, not a race (and time to try and wait)
                await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(10)).until(() -> !waiting.isDone());
                held.unlockAsync(1L).get(5, TimeUnit.SECONDS);
                assertThat(waiting.get(20, TimeUnit.SECONDS)).as("found free by polling").isTrue();
                // nobody listens on the channel (this user may not), so the last unlock publishes nothing
                waiter.unlockAsync(2L).get(5, TimeUnit.SECONDS);
                assertThat(holderClient.getLock(name).isLocked()).isFalse();
                // with a listener it publishes: refused, and the unlock still succeeds
                waiter.lockAsync(10, TimeUnit.SECONDS, 2L).get(5, TimeUnit.SECONDS);
                CompletableFuture<Void> listening = holderClient.getLock(name).lockAsync(10, TimeUnit.SECONDS, 3L);
                await().atMost(Duration.ofSeconds(10)).until(() -> admin.commands().pubsubNumsub(
                        "redisson_lock__channel:{" + name + "}").values().stream().mapToLong(Long::longValue).sum() > 0);
                waiter.unlockAsync(2L).get(5, TimeUnit.SECONDS);
                assertThat(waiter.isHeldByThread(2L)).isFalse();
                listening.get(20, TimeUnit.SECONDS); // not woken: found free at its next look
                holderClient.getLock(name).unlockAsync(3L).get(5, TimeUnit.SECONDS);
                holderClient.getLock(name).forceUnlock();
            }
        });
        assertThat(PadlockAcl.denials(admin)).as("the refused SUBSCRIBEs and PUBLISH").isNotEmpty()
                .allSatisfy(denial -> assertThat(denial).matches("channel (redisson_lock__channel|padlock_grant):\\{"
                        + java.util.regex.Pattern.quote(name) + "}.*"));
    }

    private LockClient connect(String user) {
        return LockClient.create(LockConfig.builder()
                .redisUri(PadlockAcl.withUser(plainUri, user, PASSWORD))
                .commandTimeout(Duration.ofSeconds(3))
                .watchdogTimeout(Duration.ofMillis(1_500)) // short, and renewed often enough for a busy machine
                .build());
    }

    private String port() {
        return plainUri.substring(plainUri.lastIndexOf(':') + 1);
    }
}
