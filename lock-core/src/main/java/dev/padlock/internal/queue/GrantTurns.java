package dev.padlock.internal.queue;

import dev.padlock.internal.acquire.AcquireContext;
import dev.padlock.internal.protocol.LockProtocol;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns between clients for one lock, for kinds that {@linkplain LockProtocol#granting() grant}: who
 * of a {@link LocalQueue} a release puts back in line, and what becomes of a grant nobody here
 * waits for. The queue keeps the state and makes the transitions ({@link LocalQueue#onGranted},
 * {@link LocalQueue#release}); this class only decides and sends, and never sees the queue.
 *
 * <p>The head's failed claim puts this client in line on Redis with the head ticket's place nonce;
 * the head listens on the client's grant channel while it waits, and the queue while owners queue
 * ({@link ChannelWatches}). A release by another client then passes the lock straight to the head:
 * one message, no attempt. When the {@link HandOffBudget} ends with owners still queued, the
 * global release puts this client back in line for the first of them, at the tail, as it passes
 * the lock to the next client in line ({@link #nextInLine}, {@link LocalRelease}): clients take
 * turns, each up to the budget. A grant writes the lease the owner asked for, so a granted owner
 * holds as if its own claim had taken the lock.
 *
 * <p>A grant for the head's place goes to the head's acquisition (or to the one about to start). A
 * grant for an owner that holds or has started another acquisition is left to that acquisition's
 * claim, which finds the field. A grant nobody here waits for any more is taken over by this client
 * and passed on ({@link #passOn}), like a lock whose caller gave up.
 */
final class GrantTurns {
    private static final Logger log = LoggerFactory.getLogger(GrantTurns.class);

    private GrantTurns() {
    }

    /**
     * The queued owner a global release of {@code protocol}'s lock puts this client back in line
     * for, or null: the first queued one, when the kind grants, no head runs (its own place is in
     * line already) and it can take a grant (see {@link Tickets#firstInLine}). Read under the
     * queue's monitor.
     */
    static @Nullable Ticket nextInLine(LockProtocol protocol, Tickets tickets) {
        return !tickets.headRunning() && protocol.granting() != null ? tickets.firstInLine() : null;
    }

    /**
     * This client holds the lock for {@code owner}, which no longer waits: release it on Redis.
     * Called outside the queue's monitor.
     */
    static void passOn(LocalQueues queues, AcquireContext services, LockProtocol protocol, long owner) {
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
