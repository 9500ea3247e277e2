package dev.padlock.tests.behaviour;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.tests.support.Clients;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.padlock.internal.PadlockClient;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.junit.RedisTest;
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
        holder = clients.open().getLock(name);
        waiterClient = clients.open();
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
        thread.join(5_000);
        assertThat(thread.isAlive()).isFalse();
        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
        assertThat(flagAfter.get()).as("InterruptedException clears the flag").isFalse();
        assertThat(admin.commands().hlen(name)).as("only the holder's field").isEqualTo(1);
        assertThat(((PadlockClient) waiterClient).channelsInUse()).isZero();
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
        thread.join(5_000);
        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
        assertThat(admin.commands().hlen(name)).isEqualTo(1);
        assertThat(((PadlockClient) waiterClient).channelsInUse()).isZero();
        holder.unlock();
    }

    @Test
    void anAlreadyInterruptedThreadGetsInterruptedExceptionAtOnceWithoutTouchingRedis(RedisAdmin admin) {
        long before = admin.commandStats().calls("evalsha") + admin.commandStats().calls("eval");
        Thread.currentThread().interrupt();
        assertThatThrownBy(waiter::lockInterruptibly).isInstanceOf(InterruptedException.class);
        assertThat(Thread.interrupted()).isFalse();
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> waiter.tryLock(1, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> waiter.tryLock(0, 5, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        assertThat(Thread.interrupted()).isFalse();
        long after = admin.commandStats().calls("evalsha") + admin.commandStats().calls("eval");
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
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(thread::isAlive);
        holder.unlock();
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(held.get()).isTrue();
        assertThat(flag.get()).as("the interrupt is kept").isTrue();
    }

    @Test
    void cancellingAnAsyncWaitLeavesNothingBehind(RedisAdmin admin) throws Exception {
        holder.lock(30, TimeUnit.SECONDS);
        CompletableFuture<Void> waiting = waiter.lockAsync(10, TimeUnit.SECONDS, 99L);
        awaitParked(admin);
        assertThat(waiting.cancel(true)).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> ((PadlockClient) waiterClient).channelsInUse() == 0);
        holder.unlock();
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> admin.commands().exists(name) == 0);
    }

    private void awaitParked(RedisAdmin admin) throws InterruptedException {
        String channel = "redisson_lock__channel:{" + name + "}";
        await().atMost(Duration.ofSeconds(5)).until(() -> admin.commands().pubsubNumsub(channel).get(channel) >= 1);
        Thread.sleep(100); // past the attempt that follows the subscription; nothing asserts on it
    }
}
