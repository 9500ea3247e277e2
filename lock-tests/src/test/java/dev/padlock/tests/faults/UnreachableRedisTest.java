package dev.padlock.tests.faults;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RLock;
import dev.padlock.RedisUnavailableException;
import dev.padlock.tests.support.Clients;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.RedisServerProcess;
import dev.padlock.testing.junit.RedisTest;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Redis that does not answer (paused with SIGSTOP) or is not there: each call fails with
 * {@link RedisUnavailableException} naming the address and the operation, within the contract's
 * bound (its wait plus twice the command timeout), and the client works again once Redis does.
 *
 * <p>All lock calls run on one caller thread of this test's own, so that the thread that takes a
 * lock is the one that unlocks it, and a call that hangs is caught by a bounded
 * {@code Future.get} instead of hanging the build.
 */
@RedisTest(controllable = true)
@Tag("faults")
class UnreachableRedisTest {
    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);
    /** Slack on top of the contract's bound, for a loaded machine. */
    private static final Duration SLACK = Duration.ofSeconds(2);
    /** How long past the bound a call may run before the test calls it a hang. */
    private static final Duration HANG = Duration.ofSeconds(20);

    private RedisServerProcess server;
    private RedisAdmin admin;
    private String address;
    @RegisterExtension
    final Clients clients = new Clients();
    private LockClient client;
    private ExecutorService caller;

    @BeforeEach
    void open(RedisEndpoint redis, RedisServerProcess server, RedisAdmin admin) {
        this.server = server;
        this.admin = admin;
        this.address = "127.0.0.1:" + server.port();
        client = clients.open(b -> b.commandTimeout(COMMAND_TIMEOUT));
        caller = Executors.newSingleThreadExecutor(r -> {
            Thread thread = new Thread(r, "unreachable-redis-caller");
            thread.setDaemon(true); // a hung uninterruptible lock() must not keep the JVM alive
            return thread;
        });
    }

    @AfterEach
    void close() throws InterruptedException {
        try {
            if (server.isPaused()) {
                server.resume();
            }
        } finally {
            caller.shutdownNow();
            assertThat(caller.awaitTermination(10, TimeUnit.SECONDS)).as("caller thread stopped").isTrue();
        }
    }

    @Test
    void lockFailsWhileRedisIsPausedAndWorksAfter() throws Exception {
        RLock lock = client.getLock(Clients.uniqueName("paused-lock"));

        assertUnavailableWhilePaused(Duration.ZERO, () -> lock.lock(), "lock");

        assertClientWorks();
        assertNoLeaseWithoutExpiry(lock.getName());
    }

    @Test
    void tryLockFailsWhileRedisIsPausedAndWorksAfter() throws Exception {
        RLock lock = client.getLock(Clients.uniqueName("paused-trylock"));

        assertUnavailableWhilePaused(Duration.ofSeconds(1), () -> lock.tryLock(1, TimeUnit.SECONDS), "lock");

        assertClientWorks();
        assertNoLeaseWithoutExpiry(lock.getName());
    }

    @Test
    void unlockFailsWhileRedisIsPausedAndWorksAfter() throws Exception {
        RLock lock = client.getLock(Clients.uniqueName("paused-unlock"));
        on(caller, () -> lock.lock(30, TimeUnit.SECONDS));

        assertUnavailableWhilePaused(Duration.ZERO, lock::unlock, "unlock", "release");

        assertClientWorks();
        assertNoLeaseWithoutExpiry(lock.getName());
    }

    @Test
    void isLockedFailsWhileRedisIsPausedAndWorksAfter() throws Exception {
        RLock lock = client.getLock(Clients.uniqueName("paused-islocked"));

        assertUnavailableWhilePaused(Duration.ZERO, () -> lock.isLocked(), "isLocked", "exists");

        assertClientWorks();
    }

    @Test
    void connectingWhereNothingListensFailsPromptlyNamingTheAddress() throws Exception {
        int port = freePort();
        String where = "127.0.0.1:" + port;
        Duration bound = LockConfig.DEFAULT_COMMAND_TIMEOUT.multipliedBy(2).plus(SLACK);

        long start = System.nanoTime();
        Future<Throwable> attempt = caller.submit(() -> catchThrowable(() -> {
            LockClient stray = LockClient.connect("redis://" + where);
            stray.close();
        }));
        Throwable thrown = result(attempt, bound);
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(thrown).isInstanceOf(RedisUnavailableException.class);
        assertThat(thrown.getMessage()).contains(where);
        assertThat(thrown.getMessage()).containsIgnoringCase("connect");
        assertThat(took).as("connect failure time").isLessThanOrEqualTo(bound);
    }

    // ---- helpers

    /**
     * Pauses Redis, runs {@code call} on the caller thread, resumes Redis (whatever happened), and
     * asserts the call threw {@link RedisUnavailableException} naming the address and one of
     * {@code operation}, within {@code wait} plus twice the command timeout plus slack.
     */
    private void assertUnavailableWhilePaused(Duration wait, ThrowingCallable call, String... operation)
            throws Exception {
        Duration bound = wait.plus(COMMAND_TIMEOUT.multipliedBy(2)).plus(SLACK);
        Throwable thrown;
        Duration took;
        server.pause();
        try {
            long start = System.nanoTime();
            thrown = result(caller.submit(() -> catchThrowable(call)), bound);
            took = Duration.ofNanos(System.nanoTime() - start);
        } finally {
            server.resume();
        }

        assertThat(thrown).isInstanceOf(RedisUnavailableException.class);
        assertThat(thrown.getMessage()).as("names the address").contains(address);
        String message = thrown.getMessage().toLowerCase(Locale.ROOT);
        assertThat(Arrays.stream(operation).anyMatch(op -> message.contains(op.toLowerCase(Locale.ROOT))))
                .as("message '%s' names one of %s", thrown.getMessage(), Arrays.toString(operation))
                .isTrue();
        assertThat(took).as("time to fail").isLessThanOrEqualTo(bound);
    }

    /** A lock and unlock on a fresh name succeed, on the caller thread. */
    private void assertClientWorks() throws Exception {
        RLock fresh = client.getLock(Clients.uniqueName("after-resume"));
        Boolean acquired = result(caller.submit(() -> {
            boolean got = fresh.tryLock(5, 10, TimeUnit.SECONDS);
            if (got) {
                fresh.unlock();
            }
            return got;
        }), Duration.ofSeconds(10));
        assertThat(acquired).as("tryLock after Redis came back").isTrue();
        assertThat(fresh.isLocked()).isFalse();
    }

    /**
     * A call that timed out may still land once Redis answers again (the contract says the state
     * is then unknown and a lease expires by itself): whatever is left of {@code name} must
     * carry a lease no longer than the watchdog timeout. Run after {@link #assertClientWorks()},
     * whose commands follow the stale ones on the client's connection.
     */
    private void assertNoLeaseWithoutExpiry(String name) {
        long pttl = admin.commands().pttl(name);
        assertThat(pttl).as("PTTL of '%s' after Redis came back (-2: gone)", name)
                .satisfiesAnyOf(
                        ttl -> assertThat(ttl).isEqualTo(-2L),
                        ttl -> assertThat(ttl).isBetween(1L, LockConfig.DEFAULT_WATCHDOG_TIMEOUT.toMillis()));
    }

    private static void on(ExecutorService thread, ThrowingCallable code) throws Exception {
        Throwable failure = result(thread.submit(() -> catchThrowable(code)), Duration.ofSeconds(10));
        assertThat(failure).isNull();
    }

    /** The future's value; a call still running {@link #HANG} past its bound is a hang. */
    private static <T> T result(Future<T> future, Duration bound) throws Exception {
        try {
            return future.get(bound.plus(HANG).toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            future.cancel(true);
            throw new AssertionError("call still running " + HANG + " past its bound of " + bound, e);
        }
    }

    /** A loopback port nobody listens on (free a moment ago). */
    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
