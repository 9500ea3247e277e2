package dev.padlock.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.internal.base.WaitBudget;
import dev.padlock.internal.lease.LeaseMillis;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Who Redis last confirmed, and which replies may make the queue forget it. */
class ConfirmedHolderTest {
    private final QueueFixture f = new QueueFixture();
    /** What each lease check found: see {@link ConfirmedHolder#leaseRanOut}. */
    private final List<Boolean> checks = new ArrayList<>();
    private ConfirmedHolder holder;

    ConfirmedHolderTest() {
        holder = new ConfirmedHolder(() -> new HolderLeaseWatch(f.timer, f.timer,
                () -> checks.add(holder.leaseRanOut(f.watchdog))), f.timer);
    }

    @AfterEach
    void close() {
        f.close();
    }

    private Ticket ticket(long owner, boolean watchdogLease, long leaseMillis) {
        return new Ticket(f.lock, false, owner, watchdogLease ? LeaseMillis.WATCHDOG : leaseMillis, leaseMillis,
                WaitBudget.of(WaitBudget.FOREVER, f.timer), owner);
    }

    @Test
    void nobodyHoldsAtFirst() {
        assertThat(holder.none()).isTrue();
        assertThat(holder.owner()).isEqualTo(LocalQueue.NONE);
    }

    @Test
    void aReplyToACallSentBeforeTheHolderWasConfirmedDoesNotForgetIt() {
        holder.confirm(ticket(1, true, 0), 5);

        holder.forgetIfConfirmedBefore(1, 4);

        assertThat(holder.is(1)).isTrue();
        assertThat(holder.confirmedBy(4)).isFalse();
    }

    @Test
    void aReplyToACallSentAfterTheHolderWasConfirmedForgetsIt() {
        holder.confirm(ticket(1, true, 0), 5);

        holder.forgetIfConfirmedBefore(1, 5);

        assertThat(holder.none()).isTrue();
    }

    @Test
    void aReplyAboutAnotherOwnerForgetsNobody() {
        holder.confirm(ticket(1, true, 0), 5);

        holder.forgetIfConfirmedBefore(2, 9);

        assertThat(holder.is(1)).isTrue();
    }

    @Test
    void aFixedLeaseHolderRunsOutWhenItsLeaseEnds() {
        holder.confirm(ticket(1, false, 50), 1);

        f.timer.advance(51);

        assertThat(checks).containsExactly(true);
    }

    @Test
    void aWatchdogLeaseHolderIsNotWatched() {
        holder.confirm(ticket(1, false, 50), 1);
        holder.confirm(ticket(2, true, 0), 2);

        f.timer.advance(51);

        assertThat(checks).as("the earlier check fires and finds nothing to watch").containsExactly(false);
    }

    @Test
    void aHolderTheWatchdogRenewsDoesNotRunOutAtTheEndOfAFixedLeaseReentry() {
        f.watchdog.onAcquired(f.lock, 1, LeaseMillis.WATCHDOG, f.timer.nanoTime());
        holder.confirm(ticket(1, false, 50), 1);

        f.timer.advance(51);

        assertThat(checks).containsExactly(false);
    }

    @Test
    void aGrantHeldForPassingOnIsNotWatched() {
        holder.holdForPassOn(f.lock, 3, 1);

        assertThat(holder.is(3)).isTrue();
        assertThat(f.timer.pending()).as("the watchdog's round only").isOne();
    }

    @Test
    void forgettingTheHolderStopsWatchingItsLease() {
        holder.confirm(ticket(1, false, 50), 1);

        holder.forget();

        f.timer.advance(51);
        assertThat(checks).as("the pending check finds nothing").containsExactly(false);
        assertThat(holder.none()).isTrue();
    }
}
