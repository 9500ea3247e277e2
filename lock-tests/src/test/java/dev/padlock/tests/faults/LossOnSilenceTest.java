package dev.padlock.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.padlock.LockClient;
import dev.padlock.LockObserver;
import dev.padlock.RLock;
import dev.padlock.testing.RedisServerProcess;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An owner cut off from Redis (a server stalled with SIGSTOP) is told that it lost its lock when
 * the last TTL Redis confirmed runs out, not when Redis answers again (issue 37, case 6).
 */
@RedisTest(controllable = true)
@Tag("faults")
class LossOnSilenceTest {
    private static final Duration LEASE = Duration.ofSeconds(2);
    /** How late past the lease's end the owner may be told, on a loaded machine. */
    private static final Duration LATE = Duration.ofSeconds(3);
    /** How long the test waits to be told at all before it calls the owner never told. */
    private static final Duration GIVE_UP = Duration.ofSeconds(20);

    @RegisterExtension
    final Clients clients = new Clients();

    /** The owner: its lock calls all run on this one thread. */
    private final ExecutorService owner = Executors.newSingleThreadExecutor();

    @AfterEach
    void tearDown(RedisServerProcess server) throws Exception {
        if (server.isPaused()) {
            server.resume();
        }
        owner.shutdownNow();
        assertThat(owner.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void anOwnerCutOffFromRedisIsToldOfItsLossWhenItsLeaseEnds(RedisServerProcess server) throws Exception {
        CompletableFuture<Long> listened = new CompletableFuture<>();
        CompletableFuture<Long> observed = new CompletableFuture<>();
        LockClient client = clients.open(b -> b.watchdogTimeout(LEASE)
                .leaseLostListener((name, threadId) -> listened.complete(System.nanoTime()))
                .observer(new LockObserver() {
                    @Override
                    public void leaseLost(String lockName, Kind kind, long threadId, Object holdContext) {
                        observed.complete(System.nanoTime());
                    }
                }));
        RLock lock = client.getLock(Clients.uniqueName("loss-on-silence"));
        long lockCalled = System.nanoTime();
        on(() -> {
            lock.lock();
            return null;
        });

        server.pause();
        long paused = System.nanoTime(); // every TTL confirmed was set by a request sent before now
        long toldAt;
        try {
            toldAt = listened.get(GIVE_UP.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("the owner was not told of its loss within " + GIVE_UP + " of Redis stalling", e);
        }
        observed.get(GIVE_UP.toMillis(), TimeUnit.MILLISECONDS);

        assertThat(server.isPaused()).as("told while Redis still answers nothing").isTrue();
        assertThat(Duration.ofNanos(toldAt - paused)).as("told by the end of the lease, give or take a loaded machine")
                .isLessThanOrEqualTo(LEASE.plus(LATE));
        assertThat(Duration.ofNanos(toldAt - lockCalled)).as("not before the TTL the acquisition set could end")
                .isGreaterThanOrEqualTo(LEASE.minus(LEASE.dividedBy(100)).minusMillis(2));
        // Redis is still stalled: neither call may ask it (it would fail after the command timeout)
        assertThat(on(lock::isHeldByCurrentThread)).isFalse();
        assertThatThrownBy(() -> on(() -> {
            lock.unlock();
            return null;
        })).isInstanceOf(ExecutionException.class).cause().isInstanceOf(IllegalMonitorStateException.class);

        server.resume();
        RLock other = clients.open().getLock(lock.getName());
        assertThat(other.tryLock(10, TimeUnit.SECONDS)).as("the lost hold's field expired by itself").isTrue();
        other.unlock();
    }

    private <T> T on(Callable<T> call) throws Exception {
        return owner.submit(call).get(GIVE_UP.toMillis(), TimeUnit.MILLISECONDS);
    }
}
