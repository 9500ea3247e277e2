package dev.padlock.internal.semaphore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.internal.base.ManualTimer;
import dev.padlock.internal.wakeup.WakeUps;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A {@link SemaphoreWait} taking permits from a local release ({@link PermitHandOffs}), with no
 * Redis: attempts the test answers, a channel whose parks end only when the test says (a timer
 * that is late), a manual clock. A wait takes a hand-off only while open and parked; one that
 * ended (cancelled, its time up) takes nothing, and the permits stay with the releaser.
 */
class SemaphoreWaitHandOffTest {
    private static final String NAME = "sem";
    private static final long LOOK_MILLIS = 1_000;

    private final ManualTimer clock = new ManualTimer();
    private final PermitHandOffs handOffs = new PermitHandOffs(clock);
    private final Channel channel = new Channel();
    private final ExecutorService pool = Executors.newFixedThreadPool(2);

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    /** A channel always subscribed, whose parks end only when the test wakes them. */
    private static final class Channel implements WakeUps {
        final List<CompletableFuture<Boolean>> parks = new ArrayList<>();
        final AtomicInteger closedSubscriptions = new AtomicInteger();

        synchronized void wake() {
            parks.forEach(park -> park.complete(true));
            parks.clear();
        }

        @Override
        public Subscription subscribe(String channel) {
            return new Subscription() {
                @Override
                public CompletableFuture<Void> ready() {
                    return CompletableFuture.completedFuture(null);
                }

                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public CompletableFuture<Boolean> park(long timeoutMillis) {
                    CompletableFuture<Boolean> park = new CompletableFuture<>();
                    synchronized (Channel.this) {
                        parks.add(park);
                    }
                    return park;
                }

                @Override
                public void close() {
                    closedSubscriptions.incrementAndGet();
                }
            };
        }

        @Override
        public @Nullable Subscription subscribeIfConfirmed(String channel) {
            return null;
        }

        @Override
        public @Nullable Watch watch(String channel, Runnable listener) {
            return null;
        }

        @Override
        public boolean isSubscribed(String channel) {
            return true;
        }

        @Override
        public int subscribedChannels() {
            return 1;
        }

        @Override
        public int channelsInUse() {
            return 0;
        }

        @Override
        public boolean isClosed() {
            return false;
        }

        @Override
        public String address() {
            return "nowhere";
        }

        @Override
        public void close() {
        }
    }

    /** Attempts refused at once unless the test holds the next one; counts give-backs. */
    private final class Attempts implements SemaphoreWait.Attempts {
        final int permits;
        final AtomicInteger sent = new AtomicInteger();
        final AtomicInteger givenBack = new AtomicInteger();
        volatile @Nullable CompletableFuture<Long> held;

        Attempts(int permits) {
            this.permits = permits;
        }

        @Override
        public CompletableFuture<Long> take() {
            sent.incrementAndGet();
            CompletableFuture<Long> next = held;
            return next != null ? next : CompletableFuture.completedFuture(SemaphoreWait.NO_LEASE_ENDS);
        }

        @Override
        public CompletableFuture<?> giveBack() {
            givenBack.incrementAndGet();
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public void waiting(SemaphoreWait wait) {
            handOffs.add(NAME, permits, wait);
            wait.whenComplete((taken, failure) -> handOffs.remove(NAME, wait));
        }
    }

    /** A wait for {@code attempts.permits} of {@code waitMillis}, parked after two refusals. */
    private SemaphoreWait parked(Attempts attempts, long waitMillis) {
        SemaphoreWait wait = SemaphoreWait.start("test", attempts, channel, "redisson_sc:{sem}", clock, clock,
                TimeUnit.MILLISECONDS.toNanos(waitMillis), LOOK_MILLIS);
        assertThat(attempts.sent).as("one attempt, then one once subscribed").hasValue(2);
        assertThat(wait.isParked()).isTrue();
        return wait;
    }

    @Test
    void aParkedWaitTakesAHandOffAndSendsNoMoreAttempts() {
        Attempts attempts = new Attempts(1);
        SemaphoreWait wait = parked(attempts, 10_000);

        assertThat(handOffs.handOff(NAME, 1)).as("nothing for Redis").isZero();

        assertThat(wait).isCompletedWithValue(true);
        assertThat(attempts.sent).hasValue(2);
        assertThat(channel.closedSubscriptions).as("its subscription closed").hasValue(1);
        assertThat(attempts.givenBack).hasValue(0);
    }

    @Test
    void aCancelledWaitIsNotHandedAPermitWhichGoesToRedis() {
        Attempts attempts = new Attempts(1);
        SemaphoreWait wait = parked(attempts, 10_000);

        wait.cancel(false);

        assertThat(handOffs.handOff(NAME, 1)).as("released on Redis").isEqualTo(1);
        assertThat(wait).isCancelled();
        assertThat(handOffs.semaphores()).isZero();
    }

    @Test
    void aWaitWhoseTimeIsUpIsNotHandedAPermitEvenBeforeItsTimerFires() {
        Attempts attempts = new Attempts(1);
        SemaphoreWait wait = parked(attempts, 50);

        clock.advance(50); // the channel's park has no timer: as a late one

        assertThat(handOffs.handOff(NAME, 1)).as("released on Redis").isEqualTo(1);
        assertThat(wait).as("it ended, without the permit").isCompletedWithValue(false);
    }

    @Test
    void aWaitWithAnAttemptInFlightIsNotOfferedUntilItParksAgain() {
        Attempts attempts = new Attempts(1);
        SemaphoreWait wait = parked(attempts, 10_000);
        CompletableFuture<Long> inFlight = new CompletableFuture<>();
        attempts.held = inFlight;

        channel.wake(); // a release of another client: the wait attempts again
        assertThat(attempts.sent).hasValue(3);
        assertThat(wait.isParked()).isFalse();

        assertThat(handOffs.handOff(NAME, 1)).as("not offered while its attempt is in flight").isEqualTo(1);
        assertThat(wait).isNotDone();

        attempts.held = null;
        inFlight.complete(SemaphoreWait.NO_LEASE_ENDS);
        assertThat(wait.isParked()).isTrue();
        assertThat(handOffs.handOff(NAME, 1)).isZero();
        assertThat(wait).isCompletedWithValue(true);
    }

    @Test
    void aWaitForThreePermitsTakesOnlyAReleaseOfThree() {
        Attempts attempts = new Attempts(3);
        SemaphoreWait wait = parked(attempts, 10_000);

        assertThat(handOffs.handOff(NAME, 2)).isEqualTo(2);
        assertThat(wait).isNotDone();

        assertThat(handOffs.handOff(NAME, 3)).isZero();
        assertThat(wait).isCompletedWithValue(true);
    }

    @Test
    void aWaitHandedItsPermitsIsDoneWithTheChannel() {
        Attempts attempts = new Attempts(1);
        SemaphoreWait wait = parked(attempts, 10_000);
        assertThat(handOffs.handOff(NAME, 1)).isZero();

        channel.wake(); // a release of another client comes after

        assertThat(attempts.sent).as("no attempt after the hand-off").hasValue(2);
        assertThat(wait).isCompletedWithValue(true);
        assertThat(attempts.givenBack).hasValue(0);
        assertThat(channel.parks).isEmpty();
    }

    @Test
    void anAbandonedWaitThatWasHandedItsPermitsGivesThemBack() {
        Attempts attempts = new Attempts(1);
        SemaphoreWait wait = parked(attempts, 10_000);
        assertThat(handOffs.handOff(NAME, 1)).isZero();

        wait.abandon(); // its caller's future was cancelled just after the hand-off completed it

        assertThat(attempts.givenBack).hasValue(1);
    }

    @Test
    void anAbandonedOpenWaitEndsAndGivesNothingBack() {
        Attempts attempts = new Attempts(1);
        SemaphoreWait wait = parked(attempts, 10_000);

        wait.abandon();

        assertThat(wait).isCancelled();
        assertThat(attempts.givenBack).hasValue(0);
        assertThat(handOffs.handOff(NAME, 1)).isEqualTo(1);
    }

    /**
     * A cancel and a hand-off racing: each permit ends with exactly one side, the waiter (then its
     * wait says it took it) or the releaser (then it goes to Redis).
     */
    @Test
    void aCancelRacingAHandOffNeitherLosesNorDuplicatesThePermit() throws Exception {
        for (int round = 0; round < 500; round++) {
            Attempts attempts = new Attempts(1);
            SemaphoreWait wait = parked(attempts, 10_000);
            CyclicBarrier start = new CyclicBarrier(2);
            Future<Integer> released = pool.submit(() -> {
                start.await();
                return handOffs.handOff(NAME, 1);
            });
            Future<Boolean> cancelled = pool.submit(() -> {
                start.await();
                return wait.cancel(false);
            });

            int toRedis = released.get(10, TimeUnit.SECONDS);
            boolean cancelWon = cancelled.get(10, TimeUnit.SECONDS);

            boolean waiterHolds = wait.isDone() && !wait.isCancelled() && wait.join();
            assertThat(waiterHolds).as("round %d: the waiter holds it exactly when the cancel lost", round)
                    .isEqualTo(!cancelWon);
            assertThat(toRedis + (waiterHolds ? 1 : 0)).as("round %d: one permit, one place", round).isEqualTo(1);
            assertThat(attempts.givenBack).hasValue(0);
        }
    }
}
