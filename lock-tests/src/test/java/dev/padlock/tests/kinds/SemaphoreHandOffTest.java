package dev.padlock.tests.kinds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.RSemaphore;
import dev.padlock.testing.CommandStats;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code RSemaphore}'s local hand-off on Redis: a release by a thread of a client gives its permits
 * to that client's parked waiter with no Redis call; a waiter whose wait ended (cancelled, timed
 * out) is never handed one, and the permit goes back to Redis.
 */
@RedisTest
class SemaphoreHandOffTest {
    private static final Duration BOUND = Duration.ofSeconds(30);

    @RegisterExtension
    final Clients clients = new Clients();

    /** A client whose waiters do not look again on their own (every two command timeouts) meanwhile. */
    private LockClient client() {
        return clients.open(config -> config.commandTimeout(Duration.ofSeconds(60)));
    }

    /**
     * Waits until {@code waiters} more acquisition attempts reached Redis since {@code start}: each
     * waiter attempts, subscribes, attempts again once subscribed, then parks. An attempt is one
     * GET inside semaphore_acquire, which nothing else of the clients sends.
     */
    private static void awaitAttempts(RedisAdmin admin, CommandStats start, long attempts) {
        await("attempts on Redis").atMost(BOUND).pollInterval(Duration.ofMillis(2))
                .until(() -> CommandStats.delta(start, admin.commandStats()).calls("get") >= attempts);
    }

    @Test
    void aReleaseHandsThePermitToAParkedWaiterOfItsClientWithNoRedisCall(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("sem");
        RSemaphore s = client().getSemaphore(name);
        assertThat(s.trySetPermits(1)).isTrue();
        s.acquire();
        boolean handedOff = false;
        // the waiter parks just after its second attempt's reply: try a few times to release after that
        for (int round = 0; round < 5 && !handedOff; round++) {
            CommandStats start = admin.commandStats();
            CompletableFuture<Boolean> waiter = s.tryAcquireAsync(1, BOUND);
            awaitAttempts(admin, start, 2);
            CommandStats before = admin.commandStats();

            s.release();

            assertThat(waiter.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
            // the waiter holds the permit now, whichever way it came: this thread takes its turn as holder
            handedOff = CommandStats.delta(before, admin.commandStats()).calls("incrby") == 0;
            assertThat(s.availablePermits()).as("round %d: held by the waiter", round).isZero();
        }
        assertThat(handedOff).as("a release handed the permit off with no Redis call").isTrue();
        s.release();
        assertThat(s.availablePermits()).isEqualTo(1);
    }

    @Test
    void aCancelledWaiterIsNotHandedThePermitWhichGoesBackToRedis(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("sem");
        RSemaphore s = client().getSemaphore(name);
        assertThat(s.trySetPermits(1)).isTrue();
        s.acquire();
        CommandStats start = admin.commandStats();
        CompletableFuture<Boolean> waiter = s.tryAcquireAsync(1, BOUND);
        awaitAttempts(admin, start, 2);

        waiter.cancel(false);
        s.release();

        assertThat(waiter).isCancelled();
        assertThat(s.availablePermits()).as("the permit is back on Redis").isEqualTo(1);
    }

    @Test
    void aWaiterWhoseWaitEndedIsNotHandedThePermitWhichGoesBackToRedis(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("sem");
        RSemaphore s = client().getSemaphore(name);
        assertThat(s.trySetPermits(1)).isTrue();
        s.acquire();
        CompletableFuture<Boolean> waiter = s.tryAcquireAsync(1, Duration.ofMillis(200));
        assertThat(waiter.get(BOUND.toSeconds(), TimeUnit.SECONDS)).as("its wait ended").isFalse();

        s.release();

        assertThat(s.availablePermits()).as("the permit is back on Redis").isEqualTo(1);
        assertThat(waiter).isCompletedWithValue(false);
    }

    @Test
    void anInterruptedWaiterIsNotHandedThePermitWhichGoesBackToRedis(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("sem");
        RSemaphore s = client().getSemaphore(name);
        assertThat(s.trySetPermits(1)).isTrue();
        s.acquire();
        CommandStats start = admin.commandStats();
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            try {
                s.acquire();
                outcome.complete(null);
            } catch (Throwable e) {
                outcome.complete(e);
            }
        });
        waiter.start();
        awaitAttempts(admin, start, 2);

        waiter.interrupt();
        assertThat(outcome.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        s.release();

        assertThat(s.availablePermits()).as("the permit is back on Redis").isEqualTo(1);
    }

    @Test
    void aWaiterForMorePermitsThanReleasedIsNotHandedThem(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("sem");
        RSemaphore s = client().getSemaphore(name);
        assertThat(s.trySetPermits(3)).isTrue();
        s.acquire(3);
        CommandStats start = admin.commandStats();
        CompletableFuture<Boolean> three = s.tryAcquireAsync(3, BOUND);
        awaitAttempts(admin, start, 2);

        s.release(2);
        assertThat(s.availablePermits()).as("two are not three: both on Redis").isEqualTo(2);
        assertThat(three).isNotDone();
        s.release();

        assertThat(three.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(s.availablePermits()).isZero();
        s.release(3);
        assertThat(s.availablePermits()).isEqualTo(3);
    }
}
