package dev.padlock.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;


import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.RedisUnavailableException;
import dev.padlock.testing.RedisServerProcess;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.assertj.core.api.SoftAssertions;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Redis that was there and is gone (stopped: every reconnect is refused): each call fails with
 * {@link RedisUnavailableException} naming the address and the operation within the contract's
 * bound, its wait plus twice the command timeout, whatever the kind of lock and the API.
 *
 * <p>The bound is asserted as the contract states it, with no slack: a call with no wait fails at
 * once (the client knows its connection is down and its reconnects refused), and one with a wait
 * rides the outage out until a quarter of its grace before the bound (half a command timeout, 1 s
 * here), so only a starved machine could bring them near it.
 * Each call runs on one caller thread of this test, whose bounded {@code Future.get} turns a hang
 * into a failure instead of a stuck build.
 */
@RedisTest(controllable = true)
@Tag("faults")
class RefusedConnectionTest {
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);
    /** How long past its bound a call may run before the test calls it a hang. */
    private static final Duration HANG = Duration.ofSeconds(30);

    @RegisterExtension
    final Clients clients = new Clients();
    private final ExecutorService caller = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "refused-connection-caller");
        thread.setDaemon(true);
        return thread;
    });

    @AfterEach
    void tearDown(RedisServerProcess server) throws InterruptedException {
        try {
            if (!server.isRunning()) {
                server.restart();
            }
        } finally {
            caller.shutdownNow();
            assertThat(caller.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    /**
     * Regression (issue 37): with Redis stopped, {@code tryLock()}, a fair {@code tryLock()} and a
     * lease's {@code tryAcquire(1 s)} each answered after about three command timeouts (9.3 s with
     * the default 3 s), past their bounds of 6 s and 7 s; {@code tryLock(wait, unit)} kept its bound.
     */
    @Test
    void aRefusedConnectionFailsTryLockWithinItsBound(RedisServerProcess server) throws Exception {
        LockClient client = clients.open(b -> b.commandTimeout(COMMAND_TIMEOUT));
        String name = Clients.uniqueName("refused");
        RLock lock = client.getLock(name);
        RLock fair = client.getFairLock(name + ":fair");
        RLock spin = client.getSpinLock(name + ":spin");
        RLock read = client.getReadWriteLock(name + ":rw").readLock();
        RLock write = client.getReadWriteLock(name + ":rw2").writeLock();
        RLock fenced = client.getFencedLock(name + ":fenced");
        RLock multi = client.getMultiLock(client.getLock(name + ":m1"), client.getLock(name + ":m2"));
        assertThat(lock.tryLock()).isTrue(); // connected, the scripts loaded
        lock.unlock();
        String address = "127.0.0.1:" + server.port();
        server.stop();
        // the client has found Redis gone once a read fails (it waits for a reconnect until then)
        await().atMost(HANG).until(() -> catchThrowable(lock::isLocked) instanceof RedisUnavailableException);

        softly = new SoftAssertions();
        Duration none = Duration.ZERO;
        Duration second = Duration.ofSeconds(1);
        assertFailsWithin(address, none, "tryLock", lock::tryLock);
        assertFailsWithin(address, none, "tryLock", fair::tryLock);
        assertFailsWithin(address, second, "tryAcquire", () -> lock.tryAcquire(second));
        assertFailsWithin(address, second, "tryAcquire", () -> fair.tryAcquire(second, Duration.ofSeconds(10)));
        assertFailsWithin(address, none, "tryAcquire", () -> fenced.tryAcquire(none));
        assertFailsWithin(address, second, "tryLock", () -> lock.tryLock(1, TimeUnit.SECONDS));
        assertFailsWithin(address, none, "tryLock", spin::tryLock);
        assertFailsWithin(address, none, "tryLock", read::tryLock);
        assertFailsWithin(address, none, "tryLock", write::tryLock);
        assertFailsWithin(address, none, "tryLockAndGetToken",
                () -> ((dev.padlock.RFencedLock) fenced).tryLockAndGetToken(0, 10, TimeUnit.SECONDS));
        assertFailsWithin(address, none, "tryLock", multi::tryLock);
        assertFailsWithin(address, second, "tryAcquire", () -> multi.tryAcquire(second));
        softly.assertAll();
    }

    private SoftAssertions softly;

    /**
     * Runs {@code call} on the caller thread and asserts it threw {@link RedisUnavailableException}
     * naming {@code address} and {@code operation}, within {@code wait} plus twice the command timeout.
     */
    private void assertFailsWithin(String address, Duration wait, String operation, ThrowingCallable call)
            throws Exception {
        Duration bound = wait.plus(COMMAND_TIMEOUT.multipliedBy(2));
        long start = System.nanoTime();
        Future<Throwable> attempt = caller.submit(() -> catchThrowable(call));
        Throwable thrown;
        try {
            thrown = attempt.get(bound.plus(HANG).toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            attempt.cancel(true);
            throw new AssertionError(operation + " still running " + HANG + " past its bound of " + bound, e);
        }
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        System.out.printf("refused connection: %s (wait %s) failed after %d ms: %s%n", operation, wait, took.toMillis(), thrown);

        softly.assertThat(thrown).as("%s with Redis stopped", operation).isInstanceOf(RedisUnavailableException.class);
        softly.assertThat(String.valueOf(thrown)).as("names the address").contains(address);
        softly.assertThat(String.valueOf(thrown)).as("names the operation").containsIgnoringCase(operation);
        softly.assertThat(took).as("time for %s (wait %s) to fail", operation, wait).isLessThanOrEqualTo(bound);
    }
}
