package dev.padlock.internal.renewal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.internal.base.ManualTimer;
import dev.padlock.internal.lease.LeaseMillis;
import dev.padlock.internal.protocol.LockProtocol;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Loss on silence, on a manual clock and timer: an owner whose renewals go unanswered is told it
 * lost the lock exactly when the last TTL Redis confirmed can run out, not before and not when
 * Redis answers again. With a lease of 3 s that end is the confirming request's send plus
 * {@value #END_MILLIS} ms (the lease less 1% and 2 ms of drift).
 */
class WatchdogSilenceTest {
    private static final long LEASE = 3_000;
    private static final long PERIOD = LEASE / 3;
    private static final long END_MILLIS = 2_968;

    private final ManualTimer timer = new ManualTimer();
    private final List<CompletableFuture<List<Object>>> calls = new ArrayList<>();
    private final List<String> listened = new ArrayList<>();
    private final List<String> hooked = new ArrayList<>();
    private final Watchdog watchdog = new Watchdog((script, keys, args) -> {
        CompletableFuture<List<Object>> reply = new CompletableFuture<>();
        calls.add(reply);
        return reply;
    }, (name, field) -> CompletableFuture.completedFuture(2L), false, LEASE,
            (name, owner) -> listened.add(name + "/" + owner), Runnable::run,
            (key, owner) -> hooked.add(key + "/" + owner), timer, timer);
    private final LockProtocol lock = new RenewingLock("a");

    @AfterEach
    void close() {
        watchdog.close();
    }

    @Test
    void aHoldWhoseRenewalsNeverAnswerIsLostExactlyWhenItsLastConfirmedEndPasses() {
        watchdog.onAcquired(lock, 1, LeaseMillis.WATCHDOG, timer.nanoTime());

        timer.advance(END_MILLIS - 1);
        assertThat(calls).as("two rounds sent, none answered").hasSize(2);
        assertThat(listened).isEmpty();
        assertThat(watchdog.isRenewing(lock, 1)).isTrue();
        assertThat(watchdog.toldLostOnSilence(lock, 1)).isFalse();

        timer.advance(1);
        assertThat(listened).containsExactly("a/1");
        assertThat(hooked).as("the local queues and the observer").containsExactly("a/1");
        assertThat(watchdog.isRenewing(lock, 1)).isFalse();
        assertThat(watchdog.toldLostOnSilence(lock, 1)).isTrue();
    }

    @Test
    void aHoldWhoseRenewalAnswersInTimeIsNotLostAndItsEndCountsFromThatRenewalsSend() {
        watchdog.onAcquired(lock, 1, LeaseMillis.WATCHDOG, timer.nanoTime());
        timer.advance(PERIOD);
        calls.get(0).complete(List.of(1L)); // the renewal sent now

        timer.advance(END_MILLIS - 1); // past the acquisition's end; later rounds unanswered
        assertThat(listened).isEmpty();
        assertThat(watchdog.isRenewing(lock, 1)).isTrue();

        timer.advance(1);
        assertThat(listened).containsExactly("a/1");
    }

    @Test
    void aHoldConfirmedLongAfterItsAttemptWasSentIsRenewedAtOnceAndNotLostWhenRedisAnswers() {
        long attemptSent = timer.nanoTime();
        timer.advance(1_500); // a grant after a wait: its TTL counts from the attempt's send
        watchdog.onAcquired(lock, 1, LeaseMillis.WATCHDOG, attemptSent);
        assertThat(calls).as("renewed at once: the next round could come too late").hasSize(1);
        calls.get(0).complete(List.of(1L));

        timer.advance(END_MILLIS - 1);
        assertThat(listened).isEmpty();
    }

    @Test
    void aHoldConfirmedAtOnceWaitsForTheNextRound() {
        watchdog.onAcquired(lock, 1, LeaseMillis.WATCHDOG, timer.nanoTime());

        assertThat(calls).isEmpty();
    }

    @Test
    void aRenewalAnsweredAfterTheLossDoesNotUndoIt() {
        watchdog.onAcquired(lock, 1, LeaseMillis.WATCHDOG, timer.nanoTime());
        timer.advance(END_MILLIS);
        assertThat(listened).containsExactly("a/1");

        calls.forEach(call -> call.complete(List.of(1L)));
        timer.advance(3 * PERIOD);

        assertThat(listened).as("told once").hasSize(1);
        assertThat(watchdog.isRenewing(lock, 1)).isFalse();
        assertThat(watchdog.toldLostOnSilence(lock, 1)).isTrue();
        assertThat(calls).as("nothing sent after the loss").hasSize(2);
    }

    @Test
    void aShorterFixedLeaseReentryKeepsTheLaterConfirmedEnd() {
        watchdog.onAcquired(lock, 1, LeaseMillis.WATCHDOG, timer.nanoTime()); // ends 3000 - 30 - 2
        timer.advance(500);
        watchdog.onAcquired(lock, 1, 1_000, timer.nanoTime()); // a re-entry never shortens the TTL

        timer.advance(1_000); // past the re-entry's own end
        assertThat(listened).isEmpty();
        timer.advance(1_467);
        assertThat(listened).isEmpty();
        timer.advance(1);
        assertThat(listened).containsExactly("a/1");
    }

    @Test
    void anExtensionMovesTheConfirmedEndOn() {
        watchdog.onAcquired(lock, 1, LeaseMillis.WATCHDOG, timer.nanoTime());
        timer.advance(500);
        watchdog.onExtended(lock, 1, 10_000, timer.nanoTime()); // ends 500 + 10000 - 100 - 2

        timer.advance(9_897);
        assertThat(listened).isEmpty();
        timer.advance(1);
        assertThat(listened).containsExactly("a/1");
    }

    @Test
    void aRenewalPausedForAReleaseWhoseReplyDoesNotComeIsLostAtItsEndToo() {
        watchdog.onAcquired(lock, 1, LeaseMillis.WATCHDOG, timer.nanoTime());
        watchdog.beforeRelease(lock, 1); // an inner unlock, say: the owner may hold on after it

        timer.advance(END_MILLIS - 1);
        assertThat(listened).isEmpty();
        timer.advance(1);
        assertThat(listened).containsExactly("a/1");

        watchdog.afterRelease(lock, 1, true); // its reply, late
        assertThat(watchdog.isRenewing(lock, 1)).isFalse();
        assertThat(watchdog.toldLostOnSilence(lock, 1)).isTrue();
    }

    @Test
    void aRenewalEndedByItsReleaseIsNotLost() {
        watchdog.onAcquired(lock, 1, LeaseMillis.WATCHDOG, timer.nanoTime());
        watchdog.beforeRelease(lock, 1);
        watchdog.afterRelease(lock, 1, false);

        timer.advance(2 * LEASE);

        assertThat(listened).isEmpty();
        assertThat(timer.pending()).as("only the next round").isOne();
    }

    @Test
    void anOwnerToldOfALossHoldsAgainOnceItAcquiresAgain() {
        watchdog.onAcquired(lock, 1, LeaseMillis.WATCHDOG, timer.nanoTime());
        timer.advance(END_MILLIS);
        assertThat(watchdog.toldLostOnSilence(lock, 1)).isTrue();

        watchdog.onAcquired(lock, 1, LeaseMillis.WATCHDOG, timer.nanoTime());

        assertThat(watchdog.toldLostOnSilence(lock, 1)).isFalse();
        assertThat(watchdog.isRenewing(lock, 1)).isTrue();
    }

    @Test
    void anOwnerToldOfALossIsForgottenTwoLeasesLaterWhenItsFieldIsCertainlyGone() {
        watchdog.onAcquired(lock, 1, LeaseMillis.WATCHDOG, timer.nanoTime());
        timer.advance(END_MILLIS);

        timer.advance(2 * LEASE - 1);
        assertThat(watchdog.toldLostOnSilence(lock, 1)).isTrue();
        timer.advance(PERIOD); // the next round forgets it
        assertThat(watchdog.toldLostOnSilence(lock, 1)).isFalse();
    }
}
