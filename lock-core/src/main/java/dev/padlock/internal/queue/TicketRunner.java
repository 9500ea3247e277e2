package dev.padlock.internal.queue;

import dev.padlock.internal.acquire.AcquireContext;
import dev.padlock.internal.acquire.AcquireRequest;
import dev.padlock.internal.acquire.LockAcquisition;
import dev.padlock.internal.lease.LeaseClock;
import dev.padlock.internal.redis.RedisErrors;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a ticket's acquisition against Redis for its {@link LocalQueue} (a {@link LockAcquisition};
 * as head it takes this client's place in line on Redis, for kinds that grant) and tells the
 * ticket's caller how it ended. The queue learns first: an owner Redis confirmed becomes the holder
 * (a new chain of the {@link HandOffBudget} when it was not), its queued acquisitions run as
 * re-entries, and the next head starts, all before the caller is told, so a caller that goes on (a
 * re-entry right after the acquisition) finds itself the holder. A lock that arrives for a caller
 * who gave up meanwhile is given back.
 *
 * <p>Called outside the queue's monitor, and never takes it: each change of the queue's state is
 * one of the queue's {@link Transitions}, which takes the monitor itself.
 */
final class TicketRunner {
    private static final Logger log = LoggerFactory.getLogger(TicketRunner.class);

    /** What a run asks of its queue: each takes the queue's monitor (see {@link LocalQueue}). */
    interface Transitions {
        /** Whether a grant came for {@code ticket}'s place before its acquisition was made. */
        boolean grantedEarly(Ticket ticket);

        /** {@code ticket} runs {@code acquisition}; whether a grant came for it before. */
        boolean onAcquisitionStarted(Ticket ticket, LockAcquisition acquisition);

        /**
         * How many holds {@code owner} has besides {@code except} (null: any acquisition of it), a
         * re-entry or a release whose reply was lost (see {@link ConfirmedHolder#heldBesides}):
         * {@link dev.padlock.internal.acquire.HeldBefore#NOT_YET} while a release of the lock is in
         * flight; {@code UNKNOWN} while another acquisition of the owner is in flight (which may be
         * in doubt too, and wait for this one) or it holds through a fair lock object.
         */
        int heldBesides(long owner, @Nullable Ticket except);

        /**
         * {@code ticket}'s acquisition ended: the queue learns how, then runs the re-entries it
         * claimed for an owner that now holds and starts the next head, outside its monitor.
         */
        void onAcquisitionEnded(Ticket ticket, boolean acquired, boolean head);
    }

    private final Transitions queue;
    private final AcquireContext services;
    private final LocalQueues queues;

    TicketRunner(Transitions queue, AcquireContext services, LocalQueues queues) {
        this.queue = queue;
        this.services = services;
        this.queues = queues;
    }

    /** Runs {@code ticket}'s acquisition; {@code head} tells whether it runs as the queue's head. */
    void run(Ticket ticket, boolean head) {
        ticket.sentWith = services.abandonments(); // before it looks whether its caller still waits
        if (!sendsFirstAttempt(ticket, head)) {
            start(ticket, head).begin();
            return;
        }
        boolean willWait = ticket.remainingNanos() > 0; // as the loop's own budget would say
        long sentNanos = services.clock().nanoTime();
        QueuedPath.handOffOf(ticket.protocol).firstAttempt(ticket.ttlMillis, ticket.owner, ticket.fresh, willWait,
                (attempt, failure) -> {
                    if (failure == null && attempt.acquired()
                            && services.clock().nanoTime() - LeaseClock.endOf(sentNanos, ticket.ttlMillis) < 0
                            && !services.watchdog().toldLostAfter(ticket.protocol, ticket.owner, sentNanos)) {
                        services.watchdog().onAcquired(ticket.protocol, ticket.owner, ticket.leaseMillis, sentNanos);
                        ticket.token = attempt.token();
                        if (told(ticket, true, null, head)) {
                            ticket.settle();
                        }
                    } else { // not acquired, or told too late (or before a loss told since) to be taken alone: the loop asks again
                        start(ticket, head).resume(willWait, sentNanos, attempt, failure);
                    }
                    return null;
                });
    }

    /**
     * Whether the runner sends {@code ticket}'s first attempt itself, and makes the acquisition's
     * loop only when that attempt does not acquire (most acquisitions are not contended): when the
     * loop's first attempt would be just that, taking no place in line (this client shares no
     * subscription and was not put back in line for the ticket), with no give-back to wait for, a
     * client still open and a caller still waiting.
     */
    private boolean sendsFirstAttempt(Ticket ticket, boolean head) {
        if (ticket.spin || (head && ticket.requeued) || ticket.result.isDone()
                || services.wakeUps().subscribedChannels() != 0 || services.wakeUps().isClosed()
                || services.abandonments().pending(ticket.protocol, ticket.owner) != null) {
            return false;
        }
        return !queue.grantedEarly(ticket);
    }

    /** Makes {@code ticket}'s acquisition, which tells the ticket's caller how it ended; not begun. */
    private LockAcquisition start(Ticket ticket, boolean head) {
        LockAcquisition acquisition = LockAcquisition.create(services, ticket.protocol,
                AcquireRequest.inLine(ticket.owner, ticket.leaseMillis, ticket.remainingNanos(),
                        ticket.spin, ticket.fresh, head ? ticket.nonce : 0, head && ticket.requeued));
        if (head && ticket.requeued) {
            // a grant to the place that release took is no younger than the release's send
            acquisition.inLineSince(ticket.requeuedSentNanos);
        }
        if (!ticket.fresh) {
            acquisition.confirmsReentryBy(() -> queue.heldBesides(ticket.owner, ticket));
        }
        if (queue.onAcquisitionStarted(ticket, acquisition)) {
            acquisition.grant(ticket.nonce); // a grant came before the acquisition existed: see GrantTurns
        }
        ticket.result.whenComplete((acquired, failure) -> {
            if (ticket.result.isCancelled()) {
                acquisition.result().cancel(false);
            }
        });
        acquisition.result().whenComplete((acquired, failure) -> {
            boolean got = Boolean.TRUE.equals(acquired) && !acquisition.result().isCancelled();
            ticket.token = acquisition.token();
            if (told(ticket, got, failure, head)) {
                acquisition.settled().whenComplete((ignored, settleFailure) -> ticket.settle());
            }
        });
        return acquisition;
    }

    /**
     * The queue learns how {@code ticket}'s acquisition ended, then its caller: a hold the caller
     * no longer waits for is given back.
     *
     * @return false when it was given back (which settles the ticket)
     */
    private boolean told(Ticket ticket, boolean got, @Nullable Throwable failure, boolean head) {
        queue.onAcquisitionEnded(ticket, got, head);
        boolean delivered = failure != null
                ? ticket.result.completeExceptionally(RedisErrors.unwrap(failure))
                : ticket.result.complete(got);
        if (got && !delivered) {
            giveBack(ticket);
            return false;
        }
        return true;
    }

    /** Runs re-entries the queue claimed (see {@link Tickets#claimReentriesOf}). */
    void runReentries(List<Ticket> reentries) {
        for (Ticket reentry : reentries) {
            run(reentry, false);
        }
    }

    /** The caller gave up on a lock that Redis had granted it: release it again. */
    void giveBack(Ticket ticket) {
        queues.release(ticket.protocol, services, ticket.owner).whenComplete((outcome, failure) -> {
            if (failure != null) {
                log.warn("could not give back lock '{}' after its acquisition was abandoned; its lease will "
                        + "expire: {}", ticket.protocol.name(), failure.toString());
            }
            ticket.settle();
        });
    }
}
