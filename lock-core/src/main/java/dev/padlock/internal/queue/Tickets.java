package dev.padlock.internal.queue;

import static dev.padlock.internal.base.Nulls.castToNonNull;

import dev.padlock.internal.acquire.PendingAcquire;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The acquisitions of one {@link LocalQueue}, as tickets: the head's (the one queued owner that
 * runs the wait loop against Redis), the queued ones in FIFO order, and the runs (acquisitions
 * that go to Redis outside the queue: re-entries, one-shot and direct ones). Picks who goes next,
 * and tells whether an owner still has an acquisition in the queue.
 *
 * <p>Not thread-safe: guarded by its queue's monitor.
 */
final class Tickets {
    // made at the first ticket that needs them, and small: most locks see no queue at all (a held
    // lock keeps its Tickets), and a queue of one client rarely grows long
    private @Nullable ArrayDeque<Ticket> queued;
    private @Nullable ArrayList<Ticket> runs;
    private @Nullable Ticket head;
    /**
     * The ticket a hand-off in flight goes to ({@link #claimSuccessor}): its owner's acquisition
     * until the answer puts it back first, makes it head or hands it the lock ({@link #handedOver}).
     */
    private @Nullable Ticket successor;

    private ArrayDeque<Ticket> queued() {
        if (queued == null) {
            queued = new ArrayDeque<>(2);
        }
        return queued;
    }

    /** The ticket that runs as head, or null. */
    @Nullable Ticket head() {
        return head;
    }

    boolean headRunning() {
        return head != null;
    }

    void becomeHead(Ticket ticket) {
        head = ticket;
        answered(ticket);
    }

    void headEnded() {
        head = null;
    }

    /** {@code ticket}'s acquisition ended, as the head's or as a run. */
    void ended(Ticket ticket, boolean asHead) {
        if (asHead) {
            headEnded();
        } else {
            runEnded(ticket);
        }
    }

    /** Queues {@code ticket} last. */
    void queue(Ticket ticket) {
        queued().add(ticket);
    }

    /** Puts {@code ticket} back first: a hand-off to it did not happen. */
    void putBackFirst(Ticket ticket) {
        queued().addFirst(ticket);
        answered(ticket);
    }

    /** {@link #claimFirst}, for a hand-off: the ticket counts as its owner's acquisition until answered. */
    @Nullable Ticket claimSuccessor() {
        successor = claimFirst();
        return successor;
    }

    /** The hand-off to {@code ticket} was confirmed: its owner's queued re-entries, claimed. */
    List<Ticket> handedOver(Ticket ticket) {
        answered(ticket);
        return claimReentriesOf(ticket.owner);
    }

    private void answered(Ticket ticket) {
        if (successor == ticket) {
            successor = null;
        }
    }

    /** Drops {@code ticket} from the queue, if it is there. */
    void remove(Ticket ticket) {
        if (queued != null) {
            queued.remove(ticket);
        }
    }

    boolean noneQueued() {
        return queued == null || queued.isEmpty();
    }

    int queuedCount() {
        return queued == null ? 0 : queued.size();
    }

    /** Whether a spin waiter is queued. */
    boolean spinWaiterQueued() {
        if (queued == null) {
            return false;
        }
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
    @Nullable Ticket claimFirst() {
        if (queued == null) {
            return null;
        }
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
    @Nullable Ticket firstInLine() {
        Ticket first = queued == null ? null : queued.peekFirst();
        return first == null || first.spin ? null : first;
    }

    /** Takes every queued ticket of {@code owner} that can still be claimed, in order. */
    List<Ticket> claimQueuedOf(long owner) {
        if (queued == null) {
            return List.of();
        }
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

    /**
     * The queued acquisitions of {@code owner}, which now holds the lock: each becomes a re-entry
     * that runs against Redis at once (every acquisition is its own hold), as a new one would
     * ({@link LocalQueue#enter}); the caller runs them, outside the queue's monitor.
     */
    List<Ticket> claimReentriesOf(long owner) {
        List<Ticket> reentries = claimQueuedOf(owner);
        for (Ticket reentry : reentries) {
            reentry.fresh = false;
            runStarted(reentry);
        }
        return reentries;
    }

    /** Empties the queue; its tickets, in order. */
    Ticket[] drainQueued() {
        if (queued == null) {
            return new Ticket[0];
        }
        Ticket[] all = queued.toArray(new Ticket[0]);
        queued.clear();
        return all;
    }

    /** {@code ticket} goes to Redis outside the queue. */
    void runStarted(Ticket ticket) {
        if (runs == null) {
            runs = new ArrayList<>(2);
        }
        runs.add(ticket);
    }

    void runEnded(Ticket ticket) {
        if (runs != null) {
            runs.remove(ticket);
        }
    }

    /** No head, no run, nobody queued. */
    boolean idle() {
        return head == null && runCount() == 0 && noneQueued();
    }

    /** Runs started and not yet ended. */
    int runCount() {
        return runs == null ? 0 : runs.size();
    }

    /** Whether {@code owner} has an acquisition here: head, queued or run. */
    boolean acquiring(long owner) {
        return (head != null && head.owner == owner) || (successor != null && successor.owner == owner)
                || hasOwner(queued, owner) || hasOwner(runs, owner);
    }

    /**
     * Whether another acquisition of {@code ticket}'s owner talks to Redis (head or run) and may have
     * moved the owner's hold count: one still waiting to send its first attempt (behind a give-back
     * of {@code ticket}'s, say) cannot have.
     */
    boolean runsOtherThan(Ticket ticket) {
        return runsOf(ticket.owner, ticket);
    }

    /** Whether a run of {@code owner} other than {@code except} (null: any) may have landed; see {@link #runsOtherThan}. */
    boolean runsOf(long owner, @Nullable Ticket except) {
        if (head != null && head != except && head.owner == owner && mayHaveLanded(head)) {
            return true;
        }
        if (runs != null) {
            for (Ticket run : runs) {
                if (run != except && run.owner == owner && mayHaveLanded(run)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean mayHaveLanded(Ticket ticket) {
        PendingAcquire running = ticket.running;
        return running == null || running.mayHaveLanded(); // none yet: the runner may send the first attempt itself
    }

    /** Whether an acquisition of {@code owner} here has not answered its caller yet. */
    boolean unansweredOf(long owner) {
        return (head != null && head.owner == owner && !head.result.isDone())
                || (successor != null && successor.owner == owner && !successor.result.isDone())
                || hasUnanswered(queued, owner) || hasUnanswered(runs, owner);
    }

    private static boolean hasUnanswered(@Nullable Iterable<Ticket> tickets, long owner) {
        if (tickets != null) {
            for (Ticket ticket : tickets) {
                if (ticket.owner == owner && !ticket.result.isDone()) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean hasOwner(@Nullable Iterable<Ticket> tickets, long owner) {
        if (tickets != null) {
            for (Ticket ticket : tickets) {
                if (ticket.owner == owner) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * When {@code owner} has acquisitions here already: a future that completes once they all
     * settled; else null. A new acquisition of that owner waits for it (see
     * {@link LocalQueue#admit}): two first holds of one owner in flight at once could each take the
     * owner's field for its own hold. For an owner that {@code holds}, only its acquisitions talking
     * to Redis count (a re-entry never waits for the lock behind its own queued wait): a re-entry
     * whose reply was lost is confirmed by the owner's hold count only while no other acquisition of
     * the owner can move it (a red lock's late replies, say).
     */
    @Nullable CompletableFuture<Void> earlierOf(long owner, boolean holds) {
        return holds ? runsSettledOf(owner) : settledOf(owner);
    }

    /** A future that completes once every acquisition of {@code owner} here settled; null when it has none. */
    @Nullable CompletableFuture<Void> settledOf(long owner) {
        if (!acquiring(owner)) {
            return null; // the common case, checked without making anything
        }
        List<CompletableFuture<Void>> earlier = new ArrayList<>(2);
        if (head != null && head.owner == owner) {
            earlier.add(head.settled());
        }
        if (successor != null && successor.owner == owner) {
            earlier.add(successor.settled());
        }
        addSettledOf(queued, owner, earlier);
        addSettledOf(runs, owner, earlier);
        return CompletableFuture.allOf(earlier.toArray(CompletableFuture[]::new));
    }

    /** As {@link #settledOf}, for {@code owner}'s acquisitions talking to Redis only: head and runs. */
    @Nullable CompletableFuture<Void> runsSettledOf(long owner) {
        boolean head = this.head != null && this.head.owner == owner;
        if (!head && !hasOwner(runs, owner)) {
            return null;
        }
        List<CompletableFuture<Void>> earlier = new ArrayList<>(2);
        if (head) {
            earlier.add(castToNonNull(this.head).settled()); // head: this.head is the owner's
        }
        addSettledOf(runs, owner, earlier);
        return CompletableFuture.allOf(earlier.toArray(CompletableFuture[]::new));
    }

    private static void addSettledOf(@Nullable Iterable<Ticket> tickets, long owner, List<CompletableFuture<Void>> earlier) {
        if (tickets != null) {
            for (Ticket ticket : tickets) {
                if (ticket.owner == owner) {
                    earlier.add(ticket.settled());
                }
            }
        }
    }
}
