package dev.padlock.tests.behaviour;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.padlock.LeaseLostException;
import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.LockLease;
import dev.padlock.RLock;
import dev.padlock.tests.support.Clients;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisServers;
import dev.padlock.testing.junit.RedisTest;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Work run under a lease with {@code withLock} (issue 27): it runs alone, the lease is released
 * after, and when the lease is lost (deleted, or Redis stalled past what the lease is safe for) the
 * work is stopped (the thread interrupted, the stage cancelled) and the caller gets a
 * {@link LeaseLostException}.
 */
@RedisTest
class LeasedWorkTest {
    /** Upper bound for anything that should finish quickly: catches hangs only. */
    private static final Duration HANG = Duration.ofSeconds(30);

    @RegisterExtension
    final Clients clients = new Clients();

    @Test
    void workRunsUnderALeaseThatIsReleasedAfter() throws Exception {
        RLock lock = clients.open().getLock(Clients.uniqueName("work"));
        Optional<String> result = lock.withLock(Duration.ofSeconds(5), lease -> {
            assertThat(lease.isHeld()).isTrue();
            return "done under " + lease.lockName();
        });
        assertThat(result).contains("done under " + lock.getName());
        assertThat(lock.isLocked()).isFalse();

        try (LockLease holder = lock.acquire()) {
            assertThat(lock.withLock(Duration.ofMillis(50), lease -> "never")).as("the wait ran out").isEmpty();
            assertThat(holder.isHeld()).isTrue();
        }
        assertThatThrownBy(() -> lock.withLock(Duration.ZERO, lease -> {
            throw new IllegalStateException("work failed");
        })).hasMessage("work failed");
        assertThat(lock.isLocked()).as("released after a failure too").isFalse();
    }

    @Test
    void workWhoseLeaseIsDeletedIsInterruptedAndTheCallerToldWhy(RedisAdmin admin) {
        LockClient client = clients.open(b -> b.watchdogTimeout(Duration.ofMillis(1_500)));
        RLock lock = client.getLock(Clients.uniqueName("work-deleted"));
        AtomicBoolean interrupted = new AtomicBoolean();

        assertThatThrownBy(() -> lock.withLock(Duration.ZERO, lease -> {
            admin.commands().del(lock.getName());
            try {
                Thread.sleep(HANG.toMillis()); // until the guard interrupts: the watchdog finds the loss
            } catch (InterruptedException e) {
                interrupted.set(true);
            }
            return "ran on";
        })).isInstanceOf(LeaseLostException.class).hasMessageContaining(lock.getName());

        assertThat(interrupted).isTrue();
        assertThat(Thread.currentThread().isInterrupted()).as("the guard's interrupt is not left behind").isFalse();
    }

    @Test
    void workIsStoppedWhenRedisStallsBeforeItsLeaseCouldRunOut() throws Exception {
        try (RedisServers servers = RedisServers.start(1)) {
            long leaseMillis = 3_000;
            LockClient client = LockClient.create(LockConfig.builder().redisUri(servers.uris().get(0))
                    .watchdogTimeout(Duration.ofMillis(leaseMillis)).commandTimeout(Duration.ofMillis(500)).build());
            try {
                RLock lock = client.getLock(Clients.uniqueName("work-stalled"));
                AtomicLong pausedAt = new AtomicLong();
                AtomicLong stoppedAt = new AtomicLong();
                AtomicReference<Duration> safeWhenStopped = new AtomicReference<>();
                try {
                    assertThatThrownBy(() -> lock.withLock(Duration.ZERO, lease -> {
                        pausedAt.set(System.nanoTime());
                        servers.get(0).pause(); // renewals go unanswered from now on
                        try {
                            Thread.sleep(HANG.toMillis());
                        } catch (InterruptedException e) {
                            stoppedAt.set(System.nanoTime());
                            safeWhenStopped.set(lease.safeFor());
                        }
                        return "ran on";
                    })).isInstanceOf(LeaseLostException.class).hasMessageContaining("no renewal answered");
                } finally {
                    servers.get(0).resume();
                }
                long sincePause = TimeUnit.NANOSECONDS.toMillis(stoppedAt.get() - pausedAt.get());
                System.out.printf("stalled Redis: work stopped %d ms after the pause, lease %d ms, safe for %s%n",
                        sincePause, leaseMillis, safeWhenStopped.get());
                assertThat(stoppedAt.get()).as("the work was interrupted").isPositive();
                // the last renewal answered was sent before the pause: the TTL could end by pause + lease,
                // and the lease never claims more than that
                assertThat(safeWhenStopped.get().toMillis()).isLessThanOrEqualTo(Math.max(0, leaseMillis - sincePause));
            } finally {
                client.close();
            }
        }
    }

    @Test
    void aStageWhoseLeaseIsLostIsCancelled(RedisAdmin admin) throws Exception {
        LockClient client = clients.open(b -> b.watchdogTimeout(Duration.ofMillis(1_500)));
        RLock lock = client.getLock(Clients.uniqueName("work-stage"));
        CompletableFuture<String> stage = new CompletableFuture<>();

        CompletableFuture<Optional<String>> result = lock.withLockAsync(Duration.ZERO, lease -> {
            admin.commands().del(lock.getName());
            return stage;
        });

        assertThatThrownBy(() -> result.get(HANG.toSeconds(), TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(LeaseLostException.class);
        assertThat(stage).isCancelled();
    }

    @Test
    void aStageThatCompletesReleasesItsLease() throws Exception {
        RLock lock = clients.open().getLock(Clients.uniqueName("work-stage-done"));
        CompletableFuture<Optional<Integer>> result = lock.withLockAsync(Duration.ofSeconds(5),
                lease -> CompletableFuture.supplyAsync(() -> 42));
        assertThat(result.get(HANG.toSeconds(), TimeUnit.SECONDS)).contains(42);
        await().atMost(HANG).until(() -> !lock.isLocked());

        CompletableFuture<String> endless = new CompletableFuture<>();
        CompletableFuture<Optional<String>> cancelled = lock.withLockAsync(Duration.ofSeconds(5), lease -> endless);
        await().atMost(HANG).until(lock::isLocked);
        cancelled.cancel(false);
        assertThat(endless).isCancelled();
        await().atMost(HANG).until(() -> !lock.isLocked());
    }
}
