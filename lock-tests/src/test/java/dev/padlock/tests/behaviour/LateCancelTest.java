package dev.padlock.tests.behaviour;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.LockObserver;
import dev.padlock.RFencedLock;
import dev.padlock.RLock;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A caller cancels its asynchronous acquisition just after Redis gave it the lock, before its
 * future was completed: the cancel succeeds, so the caller believes it holds nothing, and the hold
 * must be given back. Found by {@code FairLockStressTest} on CI: such a hold stayed on Redis,
 * renewed by the watchdog, with nobody to unlock it. The observer's {@code acquisitionEnded},
 * which runs after the acquisition got the lock and before the caller's future completes, makes
 * the cancel land in that window every time; the call waits behind another client's hold first,
 * so that its future is known when the lock comes.
 */
@RedisTest
class LateCancelTest {
    private static final long OWNER = 4_242L;

    @RegisterExtension
    final Clients clients = new Clients();
    private final AtomicReference<CompletableFuture<?>> call = new AtomicReference<>();
    private final AtomicBoolean cancelled = new AtomicBoolean();
    /** The kind whose acquisition the observer cancels: a composite's components are observed too. */
    private final AtomicReference<LockObserver.Kind> cancelOn = new AtomicReference<>();
    private LockClient client;
    private LockClient other;
    private String name;

    @BeforeEach
    void open() {
        name = Clients.uniqueName("late-cancel");
        LockObserver cancelAtTheEnd = new LockObserver() {
            @Override
            public Object acquisitionEnded(AcquisitionEnd end, Object context) {
                if (end.threadId() == OWNER && end.outcome() == Outcome.ACQUIRED && end.kind() == cancelOn.get()) {
                    cancel();
                }
                return null;
            }
        };
        client = clients.open(config -> config.observer(cancelAtTheEnd));
        other = clients.open();
    }

    @Test
    void aLockThatCameJustBeforeItsCallerCancelledIsGivenBack(RedisAdmin admin) throws Exception {
        cancelOn.set(LockObserver.Kind.LOCK);
        assertGivenBack(admin, client.getLock(name), lock -> lock.tryLockAsync(5, -1, TimeUnit.SECONDS, OWNER));
    }

    @Test
    void aFairLockThatCameJustBeforeItsCallerCancelledIsGivenBack(RedisAdmin admin) throws Exception {
        cancelOn.set(LockObserver.Kind.FAIR);
        assertGivenBack(admin, client.getFairLock(name), lock -> lock.lockAsync(-1, TimeUnit.SECONDS, OWNER));
    }

    @Test
    void aFencedLockThatCameJustBeforeItsCallerCancelledIsGivenBack(RedisAdmin admin) throws Exception {
        cancelOn.set(LockObserver.Kind.FENCED);
        RFencedLock fenced = client.getFencedLock(name);
        assertGivenBack(admin, fenced, lock -> fenced.tryLockAndGetTokenAsync(5, -1, TimeUnit.SECONDS, OWNER));
    }

    @Test
    void aMultiLockThatCameJustBeforeItsCallerCancelledIsGivenBack(RedisAdmin admin) throws Exception {
        cancelOn.set(LockObserver.Kind.MULTI);
        RLock multi = client.getMultiLock(client.getFairLock(name), client.getFairLock(name + ":b"));
        assertGivenBack(admin, multi, lock -> lock.tryLockAsync(5, -1, TimeUnit.SECONDS, OWNER));
        assertThat(admin.commands().exists(name + ":b")).as("the second component given back too").isZero();
    }

    private void assertGivenBack(RedisAdmin admin, RLock lock, Function<RLock, CompletableFuture<?>> acquire)
            throws Exception {
        RLock holder = other.getLock(name);
        holder.lock(30, TimeUnit.SECONDS);
        CompletableFuture<?> future = acquire.apply(lock);
        call.set(future);
        holder.unlock();
        await().atMost(Duration.ofSeconds(30)).until(future::isDone);
        assertThat(cancelled).as("the observer cancelled the call").isTrue();
        assertThat(future).isCancelled();
        // the watchdog would keep a hold nobody gave back for as long as the client lives
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(admin.commands().exists(name)).as("the hold given back").isZero());
    }

    /** Cancels the caller's future, as a caller that gives up at that moment does. */
    private void cancel() {
        CompletableFuture<?> future = call.get();
        if (future != null) {
            cancelled.set(future.cancel(true));
        }
    }
}
