package dev.padlock.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.internal.base.ManualTimer;
import dev.padlock.internal.base.WaitBudget;
import dev.padlock.internal.lease.LeaseMillis;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A queued acquisition's state machine alone, on a manual timer: WAITING -> CLAIMED | GAVE_UP. */
class TicketTest {
    private final ManualTimer timer = new ManualTimer();
    private final AtomicInteger left = new AtomicInteger();

    private Ticket queued(long waitMillis) {
        Ticket ticket = new Ticket(null, false, 1, LeaseMillis.WATCHDOG, 1_000,
                WaitBudget.of(TimeUnit.MILLISECONDS.toNanos(waitMillis), timer), 1);
        ticket.armTimeout(timer, left::incrementAndGet);
        return ticket;
    }

    @Test
    void aQueuedWaitEndsWithFalseAndLeavesTheQueue() {
        Ticket ticket = queued(60_000);
        assertThat(timer.pending()).isOne();
        timer.advance(60_001);
        assertThat(ticket.result()).isCompletedWithValue(false);
        assertThat(ticket.settled()).isDone();
        assertThat(left).hasValue(1);
    }

    @Test
    void aTicketThatGetsTheLockCancelsItsTimeout() {
        Ticket ticket = queued(600_000);
        assertThat(ticket.claim()).isTrue();
        ticket.result.complete(true);
        assertThat(timer.pending()).as("nothing outlives the wait").isZero();
        assertThat(left).hasValue(0);
    }

    @Test
    void aCancelledTicketLeavesTheQueueAndItsTimeoutIsCancelled() {
        Ticket ticket = queued(600_000);
        ticket.result().cancel(false);
        assertThat(left).hasValue(1);
        assertThat(timer.pending()).isZero();
    }

    @Test
    void aClaimedTicketDoesNotTimeOutButGivesUpWhenPutBackAfterItsWait() {
        Ticket ticket = queued(1);
        assertThat(ticket.claim()).isTrue();
        timer.advance(200);
        assertThat(ticket.remainingNanos()).as("the wait is over on the manual clock").isZero();
        assertThat(ticket.result()).isNotDone();
        assertThat(ticket.unclaim()).isFalse();
        assertThat(ticket.result()).as("not told before what the hand-off left is being given back").isNotDone();
        ticket.endGivenUp();
        assertThat(ticket.result()).isCompletedWithValue(false);
        assertThat(ticket.claim()).as("a ticket that gave up is never claimed").isFalse();
    }

    @Test
    void aTicketPutBackWithWaitLeftWaitsAgain() {
        Ticket ticket = queued(600_000);
        assertThat(ticket.claim()).isTrue();
        assertThat(ticket.unclaim()).isTrue();
        assertThat(ticket.claim()).isTrue();
    }

    @Test
    void aTicketWithoutBoundSchedulesNoTimeout() {
        Ticket ticket = new Ticket(null, false, 1, LeaseMillis.WATCHDOG, 1_000, WaitBudget.of(WaitBudget.FOREVER, timer), 1);
        ticket.armTimeout(timer, left::incrementAndGet);

        assertThat(timer.pending()).isZero();
        assertThat(ticket.remainingNanos()).isEqualTo(WaitBudget.FOREVER);
    }

    @Test
    void aClaimedTicketIgnoresItsTimeout() {
        Ticket ticket = queued(100);
        assertThat(ticket.claim()).isTrue();

        timer.advance(200);

        assertThat(ticket.result()).as("the queue decides now").isNotDone();
        assertThat(left).hasValue(0);
    }

    @Test
    void failEndsAWaitingTicketExceptionallyAndSettlesIt() {
        Ticket ticket = queued(60_000);

        ticket.fail(new IllegalStateException("closed"));

        assertThat(ticket.result()).isCompletedExceptionally();
        assertThat(ticket.settled()).isDone();
        assertThat(ticket.claim()).isFalse();
        assertThat(timer.pending()).isZero();
    }

    @Test
    void failLeavesAClaimedTicketToTheQueue() {
        Ticket ticket = queued(60_000);
        assertThat(ticket.claim()).isTrue();

        ticket.fail(new IllegalStateException("closed"));

        assertThat(ticket.result()).isNotDone();
    }

    @Test
    void aTicketEndedBeforeItEnteredAnswersFalse() {
        Ticket ticket = new Ticket(null, false, 1, LeaseMillis.WATCHDOG, 1_000, WaitBudget.of(60_000, timer), 1);

        ticket.giveUpBeforeEntry();

        assertThat(ticket.result()).isCompletedWithValue(false);
        assertThat(ticket.settled()).isDone();
        assertThat(ticket.claim()).isFalse();
    }

    @Test
    void aTicketCancelledBeforeItEnteredStaysCancelled() {
        Ticket ticket = new Ticket(null, false, 1, LeaseMillis.WATCHDOG, 1_000, WaitBudget.of(60_000, timer), 1);
        ticket.result().cancel(false);

        ticket.giveUpBeforeEntry();

        assertThat(ticket.result()).isCancelled();
        assertThat(ticket.settled()).isDone();
    }

    @Test
    void aTicketCancelledWhileClaimedGivesUpWhenPutBack() {
        Ticket ticket = queued(600_000);
        assertThat(ticket.claim()).isTrue();
        ticket.result().cancel(false);
        assertThat(left).as("claimed: the queue, not the cancel, takes it out").hasValue(0);

        assertThat(ticket.unclaim()).isFalse();
        ticket.endGivenUp();

        assertThat(ticket.result()).isCancelled();
        assertThat(ticket.settled()).isDone();
    }

    @Test
    void aOneShotTicketHasNoWait() {
        Ticket ticket = new Ticket(null, false, 1, LeaseMillis.WATCHDOG, 1_000, WaitBudget.of(0, timer), 1);
        assertThat(ticket.oneShot()).isTrue();
        assertThat(ticket.remainingNanos()).isZero();
    }
}
