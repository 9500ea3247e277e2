package dev.padlock.internal.queue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The acquisitions of one {@link LocalQueue}, as tickets: the head's (the one queued owner that
 * runs the wait loop against Redis), the queued ones in FIFO order, and the runs (acquisitions
 * that go to Redis outside the queue: re-entries, one-shot and direct ones). Picks who goes next,
 * and tells whether an owner still has an acquisition in the queue.
 *
 * <p>Not thread-safe: guarded by its queue's monitor.
 */
final class Tickets {
    // small at first: most locks see no queue at all, and a queue of one client rarely grows long
    private final ArrayDeque<Ticket> queued = new ArrayDeque<>(2);
    private final ArrayList<Ticket> runs = new ArrayList<>(2);
    private Ticket head;

    /** The ticket that runs as head, or null. */
    Ticket head() {
        return head;
    }

    boolean headRunning() {
        return head != null;
    }

    void becomeHead(Ticket ticket) {
        head = ticket;
    }

    void headEnded() {
        head = null;
    }

    /** Queues {@code ticket} last. */
    void queue(Ticket ticket) {
        queued.add(ticket);
    }

    /** Puts {@code ticket} back first: a hand-off to it did not happen. */
    void putBackFirst(Ticket ticket) {
        queued.addFirst(ticket);
    }

    /** Drops {@code ticket} from the queue, if it is there. */
    void remove(Ticket ticket) {
        queued.remove(ticket);
    }

    boolean noneQueued() {
        return queued.isEmpty();
    }

    int queuedCount() {
        return queued.size();
    }

    /** Whether a spin waiter is queued. */
    boolean spinWaiterQueued() {
        for (Ticket ticket : queued) {
            if (ticket.spin) {
                return true;
            }
        }
        return false;
    }

    /**
     * Takes the first queued ticket that can still be claimed, dropping those that gave up before
     * it; null when none is left.
     */
    Ticket claimFirst() {
        for (Iterator<Ticket> it = queued.iterator(); it.hasNext(); ) {
            Ticket ticket = it.next();
            it.remove();
            if (ticket.claim()) {
                return ticket;
            }
        }
        return null;
    }

    /** The first queued ticket, when it can take a grant (it is not a spin waiter); else null. Stays queued. */
    Ticket firstInLine() {
        Ticket first = queued.peekFirst();
        return first == null || first.spin ? null : first;
    }

    /** Takes every queued ticket of {@code owner} that can still be claimed, in order. */
    List<Ticket> claimQueuedOf(long owner) {
        List<Ticket> claimed = null;
        for (Iterator<Ticket> it = queued.iterator(); it.hasNext(); ) {
            Ticket waiting = it.next();
            if (waiting.owner == owner && waiting.claim()) {
                it.remove();
                if (claimed == null) {
                    claimed = new ArrayList<>(2);
                }
                claimed.add(waiting);
            }
        }
        return claimed == null ? List.of() : claimed;
    }

    /** Empties the queue; its tickets, in order. */
    Ticket[] drainQueued() {
        Ticket[] all = queued.toArray(new Ticket[0]);
        queued.clear();
        return all;
    }

    /** {@code ticket} goes to Redis outside the queue. */
    void runStarted(Ticket ticket) {
        runs.add(ticket);
    }

    void runEnded(Ticket ticket) {
        runs.remove(ticket);
    }

    /** Runs started and not yet ended. */
    int runCount() {
        return runs.size();
    }

    /** Whether {@code owner} has an acquisition here: head, queued or run. */
    boolean acquiring(long owner) {
        if (head != null && head.owner == owner) {
            return true;
        }
        for (Ticket ticket : queued) {
            if (ticket.owner == owner) {
                return true;
            }
        }
        for (Ticket ticket : runs) {
            if (ticket.owner == owner) {
                return true;
            }
        }
        return false;
    }

    /** A future that completes once every acquisition of {@code owner} here settled; null when it has none. */
    CompletableFuture<Void> settledOf(long owner) {
        List<CompletableFuture<Void>> earlier = new ArrayList<>(2);
        if (head != null && head.owner == owner) {
            earlier.add(head.settled);
        }
        for (Ticket ticket : queued) {
            if (ticket.owner == owner) {
                earlier.add(ticket.settled);
            }
        }
        for (Ticket ticket : runs) {
            if (ticket.owner == owner) {
                earlier.add(ticket.settled);
            }
        }
        return earlier.isEmpty() ? null : CompletableFuture.allOf(earlier.toArray(CompletableFuture[]::new));
    }
}
