package dev.padlock.tests.behaviour;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.internal.PadlockClient;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@RedisTest
class InterruptTest {
    @RegisterExtension
    final Clients clients = new Clients();
    private RLock holder;
    private LockClient waiterClient;
    private RLock waiter;
    private String name;

    @BeforeEach
    void open() {
        name = Clients.uniqueName("interrupt");
        // without the client registry, whose writes are EVALSHA calls too: see the EVALSHA count below
        holder = clients.open(config -> config.clientRegistry(false)).getLock(name);
        waiterClient = clients.open(config -> config.clientRegistry(false));
        waiter = waiterClient.getLock(name);
    }

    @Test
    void anInterruptedLockInterruptiblyThrowsAndLeavesNothingBehind(RedisAdmin admin) throws Exception {
        holder.lock(30, TimeUnit.SECONDS);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicBoolean flagAfter = new AtomicBoolean(true);
        Thread thread = new Thread(() -> {
            try {
                waiter.lockInterruptibly();
            } catch (Throwable t) {
                thrown.set(t);
                flagAfter.set(Thread.currentThread().isInterrupted());
            }
        });
        thread.start();
        awaitParked(admin);
        thread.interrupt();
        thread.join(30_000);
        assertThat(thread.isAlive()).isFalse();
        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
        assertThat(flagAfter.get()).as("InterruptedException clears the flag").isFalse();
        assertThat(admin.commands().hlen(name)).as("only the holder's field").isEqualTo(1);
        awaitNoChannelInUse();
        holder.unlock();
        assertThat(admin.commands().exists(name)).isZero();
    }

    @Test
    void anInterruptedTryLockWithAWaitThrowsAndLeavesNothingBehind(RedisAdmin admin) throws Exception {
        holder.lock(30, TimeUnit.SECONDS);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread thread = new Thread(() -> {
            try {
                waiter.tryLock(20, 10, TimeUnit.SECONDS);
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        thread.start();
        awaitParked(admin);
        thread.interrupt();
        thread.join(30_000);
        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
        assertThat(admin.commands().hlen(name)).isEqualTo(1);
        awaitNoChannelInUse();
        holder.unlock();
    }

    @Test
    void anAlreadyInterruptedThreadGetsInterruptedExceptionAtOnceWithoutTouchingRedis(RedisAdmin admin) {
        // every acquisition attempt goes out as EVALSHA first (EVAL carries only renewals and hand-offs
        // of owners that hold), and these clients write no registry entry: counting EVALSHA alone sees
        // any attempt the waiter made
        long before = admin.commandStats().calls("evalsha");
        Thread.currentThread().interrupt();
        assertThatThrownBy(waiter::lockInterruptibly).isInstanceOf(InterruptedException.class);
        assertThat(Thread.interrupted()).isFalse();
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> waiter.tryLock(1, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> waiter.tryLock(0, 5, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        assertThat(Thread.interrupted()).isFalse();
        long after = admin.commandStats().calls("evalsha");
        assertThat(after).isEqualTo(before);
        assertThat(admin.commands().exists(name)).isZero();
    }

    @Test
    void lockIgnoresAnInterruptWhileWaitingAndReassertsIt(RedisAdmin admin) throws Exception {
        holder.lock(30, TimeUnit.SECONDS);
        AtomicBoolean held = new AtomicBoolean();
        AtomicBoolean flag = new AtomicBoolean();
        CountDownLatch done = new CountDownLatch(1);
        Thread thread = new Thread(() -> {
            waiter.lock();
            held.set(waiter.isHeldByCurrentThread());
            flag.set(Thread.interrupted());
            waiter.unlock();
            done.countDown();
        });
        thread.start();
        awaitParked(admin);
        thread.interrupt();
        // the holder's 30 s lease keeps it out whatever the machine's speed: a check of state, not of time
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(10)).until(thread::isAlive);
        holder.unlock();
        assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(held.get()).isTrue();
        assertThat(flag.get()).as("the interrupt is kept").isTrue();
    }

    @Test
    void cancellingAnAsyncWaitLeavesNothingBehind(RedisAdmin admin) throws Exception {
        holder.lock(30, TimeUnit.SECONDS);
        CompletableFuture<Void> waiting = waiter.lockAsync(10, TimeUnit.SECONDS, 99L);
        awaitParked(admin);
        assertThat(waiting.cancel(true)).isTrue();
        awaitNoChannelInUse();
        holder.unlock();
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(10)).until(() -> admin.commands().exists(name) == 0);
    }

    /**
     * Waits for the waiter to listen on the unlock channel. Its attempt that follows the subscription
     * may still be in flight: an interrupt or a cancel then is answered as one while parked (the
     * attempt is cancelled and its clean-up awaited), so the tests hold either way.
     */
    private void awaitParked(RedisAdmin admin) {
        String channel = "redisson_lock__channel:{" + name + "}";
        await().atMost(Duration.ofSeconds(30)).until(() -> admin.commands().pubsubNumsub(channel).get(channel) >= 1);
    }

    /** The waiter's channel is let go (at once after a settled interrupt; bounded for a slow clean-up). */
    private void awaitNoChannelInUse() {
        await().atMost(Duration.ofSeconds(30)).until(() -> ((PadlockClient) waiterClient).channelsInUse() == 0);
    }
}
