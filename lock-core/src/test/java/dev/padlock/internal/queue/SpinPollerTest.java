package dev.padlock.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.internal.acquire.LockAcquisition;
import dev.padlock.internal.base.ManualTimer;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The poll for queued spin waiters, on a manual timer: its cadence and when it stops. */
class SpinPollerTest {
    private final ManualTimer timer = new ManualTimer();
    private final AtomicInteger polls = new AtomicInteger();
    private SpinPoller poller;

    SpinPollerTest() {
        poller = new SpinPoller(timer, () -> {
            poller.fired();
            polls.incrementAndGet();
        });
    }

    @Test
    void theFirstPollComesAfterTheSmallestBackOff() {
        poller.update(true);

        timer.advance(LockAcquisition.MIN_BACK_OFF_MILLIS - 1);
        assertThat(polls).hasValue(0);
        timer.advance(1);
        assertThat(polls).hasValue(1);
    }

    @ParameterizedTest(name = "poll {0} comes {1} ms after the one before")
    @CsvSource({"1, 1", "2, 2", "3, 4", "4, 8", "5, 16", "6, 32", "7, 64", "8, 128", "9, 128", "10, 128"})
    void eachPollStillWantedWaitsTwiceAsLongUpToTheLargestBackOff(int poll, long delayMillis) {
        for (int i = 1; i < poll; i++) {
            poller.update(true);
            timer.advance(LockAcquisition.MAX_BACK_OFF_MILLIS);
        }
        assertThat(polls).hasValue(poll - 1);

        poller.update(true);

        timer.advance(delayMillis - 1);
        assertThat(polls).hasValue(poll - 1);
        timer.advance(1);
        assertThat(polls).hasValue(poll);
    }

    @Test
    void onePollIsPendingAtATime() {
        poller.update(true);
        poller.update(true);

        assertThat(timer.pending()).isOne();
    }

    @Test
    void aPollNoLongerWantedIsCancelledAndTheBackOffStartsOver() {
        poller.update(true);
        timer.advance(1);
        poller.update(true); // would come after 2 ms

        poller.update(false);

        assertThat(poller.pending()).isFalse();
        assertThat(timer.pending()).isZero();
        poller.update(true);
        timer.advance(1);
        assertThat(polls).as("back to the smallest back-off").hasValue(2);
    }

    @Test
    void cancelStopsThePollButKeepsTheBackOff() {
        poller.update(true);
        timer.advance(1);
        poller.update(true);

        poller.cancel();

        assertThat(timer.pending()).isZero();
        poller.update(true);
        timer.advance(3);
        assertThat(polls).as("the next step, 4 ms, is not due yet").hasValue(1);
        timer.advance(1);
        assertThat(polls).hasValue(2);
    }
}
