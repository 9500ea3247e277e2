package dev.padlock.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.internal.base.ManualTimer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The check at the end of a holder's fixed lease, on a manual timer that is also the clock. */
class HolderLeaseWatchTest {
    private final ManualTimer timer = new ManualTimer();
    /** What each check that fired found: see {@link HolderLeaseWatch#over()}. */
    private final List<Boolean> checks = new ArrayList<>();
    private HolderLeaseWatch watch;

    HolderLeaseWatchTest() {
        watch = new HolderLeaseWatch(timer, timer, () -> checks.add(watch.over()));
    }

    @Test
    void aFixedLeaseIsCheckedOneMillisecondAfterItEnds() {
        watch.fixedLease(50);

        timer.advance(50);
        assertThat(checks).as("Redis may still have the key").isEmpty();
        timer.advance(1);
        assertThat(checks).containsExactly(true);
        assertThat(watch.pending()).isFalse();
    }

    @Test
    void aWatchdogLeaseSchedulesNoCheck() {
        watch.noFixedLease();

        assertThat(timer.pending()).isZero();
    }

    @Test
    void aLaterLeaseSetBeforeTheCheckIsCheckedAgainAtItsOwnEnd() {
        watch.fixedLease(50);
        timer.advance(30);
        watch.fixedLease(50); // a re-entry: now ends at 80

        assertThat(timer.pending()).as("one check at a time").isOne();
        timer.advance(21);
        assertThat(checks).as("the first check finds the lease moved on").containsExactly(false);
        assertThat(watch.pending()).isTrue();
        timer.advance(30);
        assertThat(checks).containsExactly(false, true);
    }

    @Test
    void aShorterLeaseReplacesThePendingCheck() {
        watch.fixedLease(1_000);

        watch.fixedLease(10);

        assertThat(timer.pending()).isOne();
        timer.advance(11);
        assertThat(checks).containsExactly(true);
        timer.advance(1_000);
        assertThat(checks).as("the longer lease's check was cancelled").containsExactly(true);
    }

    @Test
    void aCheckAfterTheHolderTookAWatchdogLeaseFindsNothingAndSchedulesNothing() {
        watch.fixedLease(50);
        watch.noFixedLease();

        timer.advance(51);

        assertThat(checks).containsExactly(false);
        assertThat(timer.pending()).isZero();
    }

    @Test
    void cancelCancelsThePendingCheck() {
        watch.fixedLease(50);

        watch.cancel();

        assertThat(timer.pending()).isZero();
        timer.advance(100);
        assertThat(checks).isEmpty();
    }

    @Test
    void theNextHoldersLeaseReusesThePendingCheck() {
        watch.fixedLease(50);
        watch.noFixedLease(); // the holder released
        timer.advance(10);
        watch.fixedLease(50); // the next hold: ends at 60

        assertThat(timer.pending()).as("no new check per hold").isOne();
        timer.advance(41);
        assertThat(checks).as("the first check finds the lease moved on").containsExactly(false);
        timer.advance(10);
        assertThat(checks).containsExactly(false, true);
    }
}
