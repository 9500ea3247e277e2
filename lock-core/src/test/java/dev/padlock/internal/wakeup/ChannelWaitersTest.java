package dev.padlock.internal.wakeup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.internal.base.ManualTimer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The waiters of one channel: parks, the permit, broadcasts and timeouts, on a manual timer. */
class ChannelWaitersTest {
    private static final long LONG_PARK = 60_000;

    private final ManualTimer timer = new ManualTimer();
    private final ChannelWaiters channel = new ChannelWaiters("redisson_lock__channel:{orders}", timer);

    @AfterEach
    void noParkLeftATimeoutBehind() {
        timer.advance(LONG_PARK);
        assertThat(timer.pending()).isZero();
    }

    private CompletableFuture<Boolean> park(long timeoutMillis) {
        return channel.park(timeoutMillis, channel.broadcasts());
    }

    @Test
    void aWakeUpWakesTheWaiterParkedFirstAndOnlyIt() {
        CompletableFuture<Boolean> first = park(LONG_PARK);
        CompletableFuture<Boolean> second = park(LONG_PARK);

        channel.wakeOne();

        assertThat(first).isCompletedWithValue(true);
        assertThat(second).isNotDone();
        channel.wakeOne();
        assertThat(second).isCompletedWithValue(true);
    }

    @Test
    void aParkEndsWithFalseWhenItsTimeoutRunsOutOnTheTimer() {
        CompletableFuture<Boolean> parked = park(100);

        timer.advance(99);
        assertThat(parked).isNotDone();
        timer.advance(1);

        assertThat(parked).isCompletedWithValue(false);
    }

    @Test
    void aWokenParkCancelsItsTimeout() {
        CompletableFuture<Boolean> parked = park(LONG_PARK);
        assertThat(timer.pending()).isOne();

        channel.wakeOne();

        assertThat(parked).isCompletedWithValue(true);
        assertThat(timer.pending()).isZero();
    }

    @Test
    void aTimedOutWaiterLeavesTheLineSoTheNextWakeUpIsNotSpentOnIt() {
        CompletableFuture<Boolean> timedOut = park(100);
        CompletableFuture<Boolean> patient = park(LONG_PARK);
        timer.advance(100);
        assertThat(timedOut).isCompletedWithValue(false);

        channel.wakeOne();

        assertThat(patient).isCompletedWithValue(true);
    }

    @Test
    void aWakeUpAfterEveryWaiterTimedOutIsKeptAsAPermitForTheNextOne() {
        CompletableFuture<Boolean> timedOut = park(100);
        timer.advance(100);
        assertThat(timedOut).isCompletedWithValue(false);

        channel.wakeOne();

        assertThat(park(LONG_PARK)).as("the permit left by the wake-up").isCompletedWithValue(true);
        assertThat(timer.pending()).as("a park that takes a permit schedules no timeout").isZero();
    }

    @Test
    void anAbandonedParkDoesNotSwallowTheNextWakeUp() {
        CompletableFuture<Boolean> abandoned = park(LONG_PARK);
        CompletableFuture<Boolean> waiting = park(LONG_PARK);

        abandoned.complete(false);
        channel.wakeOne();

        assertThat(waiting).isCompletedWithValue(true);
        assertThat(timer.pending()).as("the abandoned park's timeout is cancelled").isZero();
    }

    @Test
    void aBroadcastWakesEveryParkedWaiterAndLeavesNoPermit() {
        List<CompletableFuture<Boolean>> parked = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            parked.add(park(LONG_PARK));
        }

        channel.wakeAll();

        assertThat(parked).allSatisfy(waiter -> assertThat(waiter).isCompletedWithValue(true));
        assertThat(park(LONG_PARK)).as("a waiter that saw the broadcast parks").isNotDone();
    }

    @Test
    void everyBroadcastIsCounted() {
        long before = channel.broadcasts();

        channel.wakeAll();
        channel.wakeAll();
        channel.wakeOne();

        assertThat(channel.broadcasts()).isEqualTo(before + 2);
    }

    @Test
    void aClearedPermitNoLongerWakesTheNextWaiter() {
        channel.wakeOne();

        channel.clearPermit();

        CompletableFuture<Boolean> parked = park(100);
        assertThat(parked).isNotDone();
        timer.advance(100);
        assertThat(parked).isCompletedWithValue(false);
    }

    @Test
    void aParkOnAStoppedTimerEndsAtOnceAndLeavesTheLine() {
        timer.stop();

        CompletableFuture<Boolean> parked = park(LONG_PARK);

        assertThat(parked).as("a closed client's timer ends the park").isCompletedWithValue(false);
        channel.wakeOne();
        assertThat(channel.park(LONG_PARK, channel.broadcasts()))
                .as("the wake-up was not spent on the ended park: it is a permit").isCompletedWithValue(true);
    }

    @Test
    void aWaiterThatLeavesItsParkLeavesTheLineAndItsTimeoutGoes() {
        CompletableFuture<Boolean> leaving = channel.park(LONG_PARK, channel.broadcasts(), seen -> { });

        leaving.complete(false);

        assertThat(timer.pending()).isZero();
        channel.wakeOne();
        assertThat(park(LONG_PARK)).as("the wake-up was kept as a permit").isCompletedWithValue(true);
    }

    /**
     * Regression: a wake-up that reached a park as its waiter was leaving (cancelled: an
     * interrupt, a cancelled future) completed the park with true after the waiter had completed
     * its own future with false. Nobody took the wake-up: another waiter of the channel slept on a
     * free lock until its park timed out. The callback below runs the unlock message in that gap,
     * as the leaving acquisition's own callbacks let an I/O thread do.
     */
    @Test
    void aWakeUpThatReachesAWaiterAsItLeavesIsPassedOnToTheNextWaiter() {
        CompletableFuture<Boolean> leaving = channel.park(LONG_PARK, channel.broadcasts(), seen -> { });
        CompletableFuture<Boolean> staying = channel.park(LONG_PARK, channel.broadcasts(), seen -> { });
        leaving.whenComplete((woken, failure) -> channel.wakeOne()); // the unlock message, as it leaves

        leaving.complete(false);

        assertThat(staying).isCompletedWithValue(true);
    }

    @Test
    void aWakeUpThatReachesAWaiterGrantedMeanwhileIsNotPassedOn() {
        CompletableFuture<Boolean> granted = channel.park(LONG_PARK, channel.broadcasts(), seen -> { });
        CompletableFuture<Boolean> staying = channel.park(LONG_PARK, channel.broadcasts(), seen -> { });
        granted.whenComplete((woken, failure) -> channel.wakeOne());

        granted.complete(true); // a grant message woke it: the lock is its own, no one else may go

        assertThat(staying).as("the lock is held: a wake-up would only cost an attempt").isNotDone();
    }

    @Test
    void theBroadcastCountAParkEndedAtIsGivenBeforeTheWaiterIsTold() {
        AtomicLong seen = new AtomicLong(-1);
        AtomicLong seenWhenTold = new AtomicLong(-1);
        CompletableFuture<Boolean> parked = channel.park(LONG_PARK, channel.broadcasts(), seen::set);
        parked.thenRun(() -> seenWhenTold.set(seen.get()));

        channel.wakeAll();

        assertThat(parked).isCompletedWithValue(true);
        assertThat(seenWhenTold.get()).isEqualTo(channel.broadcasts());
    }

    @Test
    void everyWatcherIsToldAlthoughOneThrows() {
        List<String> told = new ArrayList<>();
        channel.addWatcher(() -> {
            told.add("first");
            throw new IllegalStateException("a broken listener");
        });
        channel.addWatcher(() -> told.add("second"));

        channel.notifyWatchers();

        assertThat(told).containsExactly("first", "second");
    }

    @Test
    void aRemovedWatcherIsNoLongerTold() {
        List<String> told = new ArrayList<>();
        Runnable watcher = () -> told.add("told");
        channel.addWatcher(watcher);
        channel.notifyWatchers();

        channel.removeWatcher(watcher);
        channel.notifyWatchers();

        assertThat(told).containsExactly("told");
    }
}
