package dev.padlock.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.internal.base.ManualTimer;
import dev.padlock.internal.base.WaitBudget;
import dev.padlock.internal.lease.LeaseMillis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The queue's tickets alone: FIFO order, who goes next, and whether an owner is still acquiring. */
class TicketsTest {
    private final ManualTimer timer = new ManualTimer();
    private final Tickets tickets = new Tickets();
    private long nonces;

    private Ticket ticket(long owner, boolean spin) {
        return new Ticket(null, spin, owner, LeaseMillis.WATCHDOG, 30_000, WaitBudget.of(WaitBudget.FOREVER, timer), ++nonces);
    }

    /** Queued as the queue queues it, armed; its leave does nothing, as if it had not run yet. */
    private Ticket queued(long owner) {
        Ticket ticket = ticket(owner, false);
        tickets.queue(ticket);
        ticket.armTimeout(timer, () -> { });
        return ticket;
    }

    @Test
    void claimFirstTakesTheOldestQueuedTicket() {
        Ticket first = queued(1);
        Ticket second = queued(2);

        assertThat(tickets.claimFirst()).isSameAs(first);
        assertThat(tickets.claimFirst()).isSameAs(second);
        assertThat(tickets.claimFirst()).isNull();
        assertThat(tickets.noneQueued()).isTrue();
    }

    @Test
    void claimFirstDropsTicketsThatGaveUpBeforeIt() {
        queued(1).result().cancel(false);
        queued(2).giveUpBeforeEntry();
        Ticket waiting = queued(3);

        assertThat(tickets.claimFirst()).isSameAs(waiting);
        assertThat(tickets.noneQueued()).isTrue();
    }

    @Test
    void aTicketPutBackAfterAHandOffGoesBeforeEveryoneElse() {
        Ticket successor = queued(1);
        queued(2);
        assertThat(tickets.claimFirst()).isSameAs(successor);

        tickets.putBackFirst(successor);

        assertThat(successor.unclaim()).isTrue();
        assertThat(tickets.claimFirst()).isSameAs(successor);
    }

    @Test
    void theFirstInLineIsTheFirstQueuedAndStaysQueued() {
        Ticket first = queued(1);
        queued(2);

        assertThat(tickets.firstInLine()).isSameAs(first);
        assertThat(tickets.queuedCount()).isEqualTo(2);
    }

    @Test
    void aSpinWaiterFirstInTheQueueTakesNoPlaceInLine() {
        tickets.queue(ticket(1, true));
        queued(2);

        assertThat(tickets.firstInLine()).isNull();
        assertThat(tickets.spinWaiterQueued()).isTrue();
    }

    @Test
    void claimQueuedOfTakesOnlyThatOwnersWaitingTicketsInOrder() {
        Ticket a = queued(1);
        queued(2);
        Ticket b = queued(1);
        queued(1).result().cancel(false);

        assertThat(tickets.claimQueuedOf(1)).containsExactly(a, b);
        assertThat(tickets.queuedCount()).as("owner 2's and the given-up one stay").isEqualTo(2);
        assertThat(tickets.claimQueuedOf(3)).isEmpty();
    }

    @ParameterizedTest(name = "as {0}")
    @ValueSource(strings = {"head", "queued", "run"})
    void anOwnerIsAcquiringWhileItHasATicketHere(String as) {
        Ticket ticket = ticket(7, false);
        switch (as) {
            case "head" -> tickets.becomeHead(ticket);
            case "queued" -> tickets.queue(ticket);
            case "run" -> tickets.runStarted(ticket);
            default -> throw new IllegalArgumentException(as);
        }

        assertThat(tickets.acquiring(7)).isTrue();
        assertThat(tickets.acquiring(8)).isFalse();
        assertThat(tickets.settledOf(7)).isNotNull().isNotDone();
    }

    @Test
    void anOwnerWithNothingHereIsNotAcquiringAndHasNothingToWaitFor() {
        queued(1);

        assertThat(tickets.acquiring(2)).isFalse();
        assertThat(tickets.settledOf(2)).isNull();
    }

    @Test
    void settledOfCompletesOnceEveryAcquisitionOfTheOwnerSettled() {
        Ticket head = ticket(1, false);
        tickets.becomeHead(head);
        Ticket run = ticket(1, false);
        tickets.runStarted(run);

        var earlier = tickets.settledOf(1);
        head.settle();
        assertThat(earlier).isNotDone();
        run.settle();
        assertThat(earlier).isDone();
    }

    @Test
    void runsAreCountedUntilTheyEnd() {
        Ticket run = ticket(1, false);
        tickets.runStarted(run);
        assertThat(tickets.runCount()).isOne();

        tickets.runEnded(run);

        assertThat(tickets.runCount()).isZero();
        assertThat(tickets.acquiring(1)).isFalse();
    }

    @Test
    void drainQueuedEmptiesTheQueueInOrder() {
        Ticket first = queued(1);
        Ticket second = queued(2);

        assertThat(tickets.drainQueued()).containsExactly(first, second);
        assertThat(tickets.noneQueued()).isTrue();
    }
}
