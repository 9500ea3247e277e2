package dev.padlock.internal.queue;

import dev.padlock.internal.acquire.AcquireContext;
import dev.padlock.internal.acquire.LockAcquisition;
import dev.padlock.internal.protocol.LockProtocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes the grants of one {@link LocalQueue}'s lock: turns between clients, for kinds that
 * {@linkplain LockProtocol#grants() grant}.
 *
 * <p>The head's failed claim puts this client in line on Redis with the head ticket's place nonce;
 * the head listens on the client's grant channel while it waits, and the queue while owners queue
 * ({@link ChannelWatches}). A release by another client then passes the lock straight to the head:
 * one message, no attempt. When the {@link HandOffBudget} ends with owners still queued, the
 * global release puts this client back in line for the first of them, at the tail, as it passes
 * the lock to the next client in line ({@link LocalRelease}): clients take turns, each up to the
 * budget. A grant writes the lease the owner asked for, so a granted owner holds as if its own
 * claim had taken the lock.
 *
 * <p>A grant for the head's place goes to the head's acquisition (or to the one about to start). A
 * grant for an owner that holds or has started another acquisition is left to that acquisition's
 * claim, which finds the field. A grant nobody here waits for any more is taken over by this client
 * and passed on, like a lock whose caller gave up.
 *
 * <p>Called outside the queue's monitor; takes it for each look at or change of the queue's state.
 */
final class GrantTurns {
    private static final Logger log = LoggerFactory.getLogger(GrantTurns.class);

    private final LocalQueue queue;
    private final Tickets tickets;
    private final ConfirmedHolder holder;
    private final AcquireContext services;
    private final LocalQueues queues;

    GrantTurns(LocalQueue queue, Tickets tickets, ConfirmedHolder holder, AcquireContext services,
            LocalQueues queues) {
        this.queue = queue;
        this.tickets = tickets;
        this.holder = holder;
        this.services = services;
        this.queues = queues;
    }

    /**
     * A release by another client passed the lock to {@code owner} of this client, answering the
     * place in line with {@code nonce}: Redis put the owner's field in. See the class notes.
     *
     * @return false when the queue is retired (take the name's queue again)
     */
    boolean onGranted(LockProtocol protocol, long owner, long nonce) {
        LockAcquisition acquisition;
        synchronized (queue) {
            if (queue.retired) {
                return false;
            }
            Ticket head = tickets.head();
            acquisition = null;
            if (head != null && head.nonce == nonce && head.owner == owner) {
                if (head.running == null) {
                    head.grantedEarly = true; // the runner hands it to the acquisition it starts
                    return true;
                }
                acquisition = head.running instanceof LockAcquisition running ? running : null;
            }
        }
        if (acquisition != null && acquisition.grant(nonce)) {
            return true;
        }
        synchronized (queue) {
            if (queue.retired) {
                return false;
            }
            if (holder.is(owner) || tickets.acquiring(owner)) {
                // the owner holds (a claim found the granted field first) or is acquiring again:
                // its claim finds the field, so the grant is not lost
                return true;
            }
            holder.holdForPassOn(protocol, owner, queues.confirmed());
        }
        passOn(protocol, owner);
        return true;
    }

    /** This client holds the lock for {@code owner}, which no longer waits: release it on Redis. */
    private void passOn(LockProtocol protocol, long owner) {
        log.debug("lock '{}' was granted to {} of this client, which no longer waits: passing it on",
                protocol.name(), owner);
        queues.release(protocol, services, owner).whenComplete((outcome, failure) -> {
            if (failure != null) {
                log.warn("could not pass on lock '{}' granted to an owner that no longer waits; its lease "
                        + "will expire: {}", protocol.name(), failure.toString());
            }
        });
    }
}
