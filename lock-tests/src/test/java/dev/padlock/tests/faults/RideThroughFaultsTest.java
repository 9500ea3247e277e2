package dev.padlock.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.LockObserver;
import dev.padlock.RFencedLock;
import dev.padlock.RLock;
import dev.padlock.RedisUnavailableException;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisServerProcess;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Acquisitions and releases whose reply is lost (a crash with the call in flight, a stalled
 * server past the command timeout): an acquisition with wait left finds out what happened instead
 * of failing, and one its caller was told had failed leaves nothing behind on Redis.
 */
@RedisTest(controllable = true)
@Tag("faults")
class RideThroughFaultsTest {

    @RegisterExtension
    final Clients clients = new Clients();

    /** One thread per test, so that an owner's next call comes from the same thread. */
    private final ExecutorService owner = Executors.newSingleThreadExecutor();

    @AfterEach
    void tearDown(RedisServerProcess server) throws Exception {
        if (server.isPaused()) {
            server.resume();
        }
        if (!server.isRunning()) {
            server.restart();
        }
        owner.shutdownNow();
        assertThat(owner.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    /**
     * Regression: a waiter whose attempt was in flight when Redis crashed got
     * {@code RedisUnavailableException: Connection reset} although most of its wait was left.
     */
    @Test
    void aWaiterWhoseAttemptWasInFlightWhenRedisCrashedRidesThroughTheRestart(RedisServerProcess server,
            RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("crash-in-flight");
        AtomicInteger started = new AtomicInteger();
        LockObserver startedCalls = new LockObserver() {
            @Override
            public Object acquisitionStarted(String lockName, Kind kind, long threadId) {
                started.incrementAndGet();
                return null;
            }
        };
        RLock lock = clients.open(b -> b.commandTimeout(Duration.ofSeconds(2)).observer(startedCalls)).getLock(name);
        server.pause();
        Future<Boolean> waiter = owner.submit(() -> lock.tryLock(15, 30, TimeUnit.SECONDS));
        // the acquisition has started: its attempt goes out at once, and the paused server leaves it
        // unanswered (were it still being written at the kill, the client would see a refused send
        // instead, and must ride through that as well)
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5)).until(() -> started.get() == 1);
        server.kill();     // its bytes unread: the client sees the connection reset
        server.restart();  // with no data

        assertThat(waiter.get(20, TimeUnit.SECONDS)).as("acquired after the restart").isTrue();
        assertThat(onOwner(lock::getHoldCount)).isEqualTo(1);
        assertThat(admin.commands().hlen(name)).isEqualTo(1);
        onOwner(() -> {
            lock.unlock();
            return null;
        });
        assertThat(admin.commands().exists(name)).isZero();
    }

    /**
     * Regression: an acquisition that failed with a command timeout landed when the stalled server
     * woke, and was kept: other clients waited for its whole lease, and the owner's next
     * {@code tryLock} was a re-entry into it.
     */
    @Test
    void anAcquisitionThatTimedOutAndLandedLaterIsGivenBack(RedisServerProcess server, RedisAdmin admin)
            throws Exception {
        givenBackAfterItsCallerWasToldItFailed(server, admin, LockClient::getLock, RLock::tryLock);
    }

    /** Regression: the same with the fenced lock, whose stray hold also kept handing out one token. */
    @Test
    void aFencedAcquisitionThatTimedOutAndLandedLaterIsGivenBack(RedisServerProcess server, RedisAdmin admin)
            throws Exception {
        givenBackAfterItsCallerWasToldItFailed(server, admin, LockClient::getFencedLock,
                lock -> ((RFencedLock) lock).tryLockAndGetToken(0, -1, TimeUnit.SECONDS) != null);
    }

    private void givenBackAfterItsCallerWasToldItFailed(RedisServerProcess server, RedisAdmin admin,
            BiFunction<LockClient, String, RLock> kind, TryLock tryLock) throws Exception {
        String name = Clients.uniqueName("timed-out-lands-later");
        LockClient client = clients.open(b -> b.commandTimeout(Duration.ofMillis(500)));
        RLock lock = kind.apply(client, name);
        RLock other = clients.open().getLock(name);
        loadScripts(kind.apply(client, name + ":warm-up")); // so the attempt runs on resume, not NOSCRIPT
        server.pause();
        Future<Object> attempt = owner.submit(() -> {
            try {
                return tryLock.attempt(lock);
            } catch (RedisUnavailableException e) {
                return e;
            }
        });
        Object outcome = attempt.get(10, TimeUnit.SECONDS);
        server.resume(); // the attempt runs now, after its caller was told it failed

        assertThat(outcome).as("the caller was told it failed").isInstanceOf(RedisUnavailableException.class);
        assertThat(other.tryLock(15, 10, TimeUnit.SECONDS))
                .as("another client gets the lock long before the 30 s watchdog lease of the stray hold")
                .isTrue();
        other.unlock();
        assertThat(onOwner(() -> lock.tryLock(15, TimeUnit.SECONDS))).isTrue();
        assertThat(onOwner(lock::getHoldCount)).as("a fresh acquisition, not a re-entry").isEqualTo(1);
        onOwner(() -> {
            lock.unlock();
            return null;
        });
        assertThat(admin.commands().exists(name)).isZero();
    }

    /** A stalled server past the command timeout, shorter than the wait: the waiter gets the lock. */
    @Test
    void aWaiterRidesThroughAStallLongerThanTheCommandTimeout(RedisServerProcess server, RedisAdmin admin)
            throws Exception {
        String name = Clients.uniqueName("stall");
        RLock lock = clients.open(b -> b.commandTimeout(Duration.ofMillis(500))).getLock(name);
        server.pause();
        Future<Boolean> waiter = owner.submit(() -> lock.tryLock(10, TimeUnit.SECONDS));
        Thread.sleep(1_600); // not a synchronisation: the stall itself, three command timeouts long
        server.resume();

        assertThat(waiter.get(15, TimeUnit.SECONDS)).isTrue();
        assertThat(onOwner(lock::getHoldCount)).as("claims sent again while unanswered count once").isEqualTo(1);
        onOwner(() -> {
            lock.unlock();
            return null;
        });
        assertThat(admin.commands().exists(name)).isZero();
    }

    /** An unlock whose reply is lost says that it could not be confirmed. */
    @Test
    void anUnlockWhoseReplyIsLostSaysItCouldNotBeConfirmed(RedisServerProcess server, RedisAdmin admin)
            throws Exception {
        String name = Clients.uniqueName("unconfirmed-unlock");
        RLock lock = clients.open(b -> b.commandTimeout(Duration.ofMillis(500)).watchdogTimeout(Duration.ofMillis(1500)))
                .getLock(name);
        assertThat(onOwner(() -> lock.tryLock(1, TimeUnit.SECONDS))).isTrue();
        server.pause();
        Object outcome = onOwner(() -> {
            try {
                lock.unlock();
                return "unlocked";
            } catch (RedisUnavailableException e) {
                return e;
            }
        });
        server.resume();

        assertThat(outcome).isInstanceOf(RedisUnavailableException.class);
        assertThat(((Exception) outcome).getMessage()).contains("could not be confirmed").contains(name);
        // whether the release ran or not (here it did not: Redis answered NOSCRIPT after the timeout,
        // too late for the retry with EVAL), nothing renews the hold: its 1.5 s lease ends it
        await().atMost(Duration.ofSeconds(30)).until(() -> admin.commands().exists(name) == 0);
    }

    /** One acquisition attempt without wait. */
    interface TryLock {
        boolean attempt(RLock lock) throws Exception;
    }

    /** Takes and releases {@code lock} on the owner's thread: Redis then knows the scripts. */
    private void loadScripts(RLock lock) throws Exception {
        assertThat(onOwner(() -> lock.tryLock())).isTrue();
        onOwner(() -> {
            lock.unlock();
            return null;
        });
    }

    private <T> T onOwner(Callable<T> call) throws Exception {
        return owner.submit(call).get(20, TimeUnit.SECONDS);
    }
}
