package dev.padlock.tests.behaviour;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockLease;
import dev.padlock.RLock;
import dev.padlock.tests.support.Clients;
import dev.padlock.testing.junit.RedisTest;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Work without a result under a lease (issue 38, item 5): {@code withLock} takes a
 * {@code Function}, so the README's {@code lock.withLock(wait, lease -> ship(order))} with a
 * {@code void ship} did not compile. {@code runWithLock} and {@code runWithLockAsync} run such work
 * under the lock, release it after, and answer whether the work ran.
 */
@RedisTest
class WorkWithoutAResultTest {
    /** Upper bound for anything that should finish quickly: catches hangs only. */
    private static final Duration HANG = Duration.ofSeconds(30);

    @RegisterExtension
    final Clients clients = new Clients();

    private final AtomicInteger shipped = new AtomicInteger();

    /** The README's {@code ship(order)}: work that returns nothing. */
    private void ship(RLock lock) {
        assertThat(lock.isLocked()).as("shipped under the lock").isTrue();
        shipped.incrementAndGet();
    }

    @Test
    void voidWorkRunsUnderTheLockWhichIsReleasedAfter() throws Exception {
        RLock lock = clients.open().getLock(Clients.uniqueName("void-work"));

        assertThat(lock.runWithLock(Duration.ofSeconds(5), lease -> ship(lock))).isTrue();

        assertThat(shipped).hasValue(1);
        assertThat(lock.isLocked()).isFalse();
        assertThatThrownBy(() -> lock.runWithLock(Duration.ZERO, lease -> {
            throw new IllegalStateException("work failed");
        })).hasMessage("work failed");
        assertThat(lock.isLocked()).as("released after a failure too").isFalse();
    }

    @Test
    void voidWorkDoesNotRunWhileTheLockIsHeldElsewhereForTheWholeWait() throws Exception {
        RLock held = clients.open().getLock(Clients.uniqueName("void-work-held"));
        RLock lock = clients.open().getLock(held.getName());
        try (LockLease holder = held.acquire()) {
            assertThat(lock.runWithLock(Duration.ofMillis(200), lease -> ship(lock))).isFalse();
            assertThat(holder.isHeld()).isTrue();
        }
        assertThat(shipped).as("the work never ran").hasValue(0);
    }

    @Test
    void aStageWithoutAValueTellsWhetherItRan() throws Exception {
        RLock lock = clients.open().getLock(Clients.uniqueName("void-stage"));
        AtomicBoolean heldWhileRunning = new AtomicBoolean();

        CompletableFuture<Boolean> ran = lock.runWithLockAsync(Duration.ofSeconds(5),
                lease -> CompletableFuture.runAsync(() -> heldWhileRunning.set(lease.isHeld())));

        assertThat(ran.get(HANG.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(heldWhileRunning).isTrue();
        await().atMost(HANG).until(() -> !lock.isLocked());
    }

    @Test
    void aStageWithoutAValueDoesNotStartWhileTheLockIsHeldElsewhereForTheWholeWait() throws Exception {
        RLock held = clients.open().getLock(Clients.uniqueName("void-stage-held"));
        RLock lock = clients.open().getLock(held.getName());
        AtomicBoolean started = new AtomicBoolean();
        try (LockLease holder = held.acquire()) {
            CompletableFuture<Boolean> ran = lock.runWithLockAsync(Duration.ofMillis(200), lease -> {
                started.set(true);
                return CompletableFuture.completedFuture(null);
            });
            assertThat(ran.get(HANG.toSeconds(), TimeUnit.SECONDS)).isFalse();
            assertThat(holder.isHeld()).isTrue();
        }
        assertThat(started).as("the work never started").isFalse();
    }
}
