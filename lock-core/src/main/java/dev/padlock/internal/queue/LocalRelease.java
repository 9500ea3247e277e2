package dev.padlock.internal.queue;

import dev.padlock.RedisUnavailableException;
import dev.padlock.internal.acquire.AcquireContext;
import dev.padlock.internal.lease.LeaseClock;
import dev.padlock.internal.protocol.LockProtocol;
import dev.padlock.internal.protocol.LockProtocol.Release;
import dev.padlock.internal.protocol.LockProtocol.ReleaseOutcome;
import dev.padlock.internal.redis.RedisErrors;
import dev.padlock.internal.renewal.Watchdog;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Releases one hold of an owner through its {@link LocalQueue}, and lets the reply correct the
 * queue.
 *
 * <p><b>Hand-off.</b> With an owner queued, no head running and the {@link HandOffBudget} not
 * spent, the holder's unlock sends one {@code lock_handoff} call that replaces the holder's field
 * with the successor's and publishes nothing. The successor is told it holds only when that call
 * answers "handed over"; "holds remain" puts it back at the front; "not held" (or a failure)
 * forgets the holder and makes the successor head, which asks Redis: its attempt is a claim, so a
 * hand-off that landed unanswered is found there.
 *
 * <p><b>Global release.</b> Otherwise the unlock deletes and publishes on Redis. For kinds that
 * grant, it puts this client back in line for the first queued owner as it passes the lock to the
 * next client in line (see {@link GrantTurns}). When its message reached other clients, the next
 * local owner first yields ({@link HandOffBudget#yieldNanos}).
 *
 * <p>A reply forgets the holder only when Redis confirmed it before the call was sent (see
 * {@link ConfirmedHolder}). Called outside the queue's monitor; takes it for each change of the
 * queue's state.
 */
final class LocalRelease {
    private final LocalQueue queue;
    private final Tickets tickets;
    private final ConfirmedHolder holder;
    private final HandOffBudget budget;
    private final TicketRunner runner;
    private final AcquireContext services;
    private final LocalQueues queues;

    LocalRelease(LocalQueue queue, Tickets tickets, ConfirmedHolder holder, HandOffBudget budget, TicketRunner runner,
            AcquireContext services, LocalQueues queues) {
        this.queue = queue;
        this.tickets = tickets;
        this.holder = holder;
        this.budget = budget;
        this.runner = runner;
        this.services = services;
        this.queues = queues;
    }

    /**
     * Releases one hold of {@code owner}: hands the lock to the first queued owner when the budget
     * allows and nobody of this client is acquiring it, else releases it on Redis. Either way the
     * reply decides what this client believes.
     *
     * @return the reply, or null when the queue is retired (take the name's queue again)
     */
    @Nullable CompletableFuture<ReleaseOutcome> release(LockProtocol protocol, long owner) {
        Ticket successor = null;
        Ticket next = null;
        long sentAt;
        synchronized (queue) {
            if (queue.retired) {
                return null;
            }
            queue.releaseSent();
            // an owner with more holds than this one keeps the lock: no hand-off
            if (holder.is(owner) && holder.holds() <= 1 && !tickets.headRunning() && budget.allowsHandOff()) {
                successor = tickets.claimFirst();
            }
            if (successor == null && !tickets.headRunning() && protocol.grants()) {
                next = tickets.firstInLine();
            }
            sentAt = queues.confirmations();
        }
        return successor != null
                ? handOff(protocol, owner, successor, sentAt) : releaseOnRedis(protocol, owner, sentAt, next);
    }

    /** The reply to a release sent by {@link #release} came (or its call failed): last of its callback. */
    private void answered() {
        synchronized (queue) {
            queue.releaseAnswered();
        }
    }

    /**
     * A release of {@code owner} said holds remain: the holder counts one fewer. Returns whether
     * the owner holds on as this client counts it (see {@link LocalQueue#holdsOn}); if not, what
     * Redis keeps is no hold anyone was told of (an acquisition given up in doubt that landed, given
     * back by itself, or a count left by a lost hold), and it is not renewed.
     */
    private boolean releasedOneOf(long owner) {
        synchronized (queue) {
            releasedOne(owner);
            return !holder.is(owner) || queue.holdsOn(owner);
        }
    }

    /** A release of {@code owner} said holds remain: the holder counts one fewer. */
    private void releasedOne(long owner) {
        synchronized (queue) {
            if (holder.is(owner)) {
                holder.releasedOne();
            }
        }
    }

    /** {@code failure} again, for a callback stage that passes its call's failure on. */
    private static CompletionException passOn(Throwable failure) {
        return failure instanceof CompletionException wrapped ? wrapped : new CompletionException(failure);
    }

    /**
     * Releases on Redis; when {@code next} is not null and the lock goes to another client in line,
     * this client gets back in line for {@code next}'s owner.
     */
    private CompletableFuture<ReleaseOutcome> releaseOnRedis(LockProtocol protocol, long owner, long sentAt,
            @Nullable Ticket next) {
        Watchdog watchdog = services.watchdog();
        long rearm = watchdog.beforeRelease(protocol, owner) ? watchdog.leaseMillis() : 0;
        long sent = services.clock().nanoTime();
        long nextOwner = next == null ? LocalQueue.NONE : next.owner;
        long nextLease = next == null ? 0 : next.leaseMillis;
        long nextNonce = next == null ? 0 : next.nonce;
        // handled in the reply's own stage: this runs on every uncontended unlock
        return protocol.release(owner, rearm, nextOwner, nextLease, nextNonce, (release, failure) -> {
            boolean inDoubt = false;
            try {
                if (next != null && failure == null && release.granted()) {
                    next.requeuedSentNanos = sent;
                    next.requeued = true;
                }
                ReleaseOutcome outcome = failure == null ? release.outcome() : null;
                inDoubt = outcome == null && othersRemainInDoubt(owner, failure, sentAt);
                // what remains may be no hold the owner was told of: then it is not renewed
                boolean holdsRemain = (outcome == ReleaseOutcome.STILL_HELD || inDoubt) && releasedOneOf(owner);
                watchdog.afterRelease(protocol, owner, holdsRemain);
                if (!holdsRemain) {
                    long yieldNanos = outcome == null || outcome == ReleaseOutcome.STILL_HELD ? 0
                            : HandOffBudget.yieldNanos(release,
                                    services.wakeUps().isSubscribed(protocol.unlockChannel(LocalQueue.NONE)),
                                    services.clock().nanoTime() - sent);
                    afterRelease(owner, yieldNanos, sentAt);
                }
            } finally {
                answered();
            }
            if (inDoubt) {
                // the owner holds on; Redis's count tells, once it answers, whether this hold is still there
                services.abandonments().giveBackIfLanded(protocol, owner, () -> queue.heldBy(owner));
            }
            if (failure != null) {
                throw passOn(failure);
            }
            return release.outcome();
        });
    }

    /**
     * Whether a release of {@code owner} sent at {@code sentAt} failed with its reply lost while the
     * owner, as Redis confirmed before it was sent, holds more than that one hold: the other holds
     * stay, and the one in doubt is given back if Redis still counts it ({@code Abandonments.giveBackIfLanded}).
     */
    private boolean othersRemainInDoubt(long owner, Throwable failure, long sentAt) {
        if (!(RedisErrors.unwrap(failure) instanceof RedisUnavailableException)) {
            return false;
        }
        synchronized (queue) {
            return holder.is(owner) && holder.confirmedBy(sentAt) && holder.holds() > 1;
        }
    }

    /**
     * After a release on Redis that dropped the owner's last hold, found it not held, or failed
     * (unknown: Redis decides next): the next local owner asks Redis, after {@code yieldNanos}.
     */
    private void afterRelease(long owner, long yieldNanos, long sentAt) {
        Ticket next;
        synchronized (queue) {
            holder.forgetIfConfirmedBefore(owner, sentAt);
            next = queue.nextHead();
        }
        if (next != null && yieldNanos > 0) {
            services.timer().newTimeout(timeout -> queue.startHead(next), yieldNanos, TimeUnit.NANOSECONDS);
        } else {
            queue.startHead(next);
        }
    }

    /** Passes the lock from {@code owner} to {@code successor} in one call; see the class notes. */
    private CompletableFuture<ReleaseOutcome> handOff(LockProtocol protocol, long owner, Ticket successor,
            long sentAt) {
        Watchdog watchdog = services.watchdog();
        long rearm = watchdog.beforeRelease(protocol, owner) ? watchdog.leaseMillis() : 0;
        long sentNanos = services.clock().nanoTime();
        return protocol.handOff(owner, successor.owner, successor.leaseMillis, rearm).whenComplete((outcome, failure) -> {
            try {
                watchdog.afterRelease(protocol, owner, outcome == ReleaseOutcome.STILL_HELD);
                if (outcome == ReleaseOutcome.RELEASED
                        && services.clock().nanoTime() - LeaseClock.endOf(sentNanos, successor.leaseMillis) < 0) {
                    handedOver(successor, sentNanos);
                } else if (outcome == ReleaseOutcome.RELEASED) {
                    // told too late to be taken alone: the successor asks Redis itself, as after a lost reply
                    handOffRefused(owner, successor, true, sentAt);
                } else if (outcome == ReleaseOutcome.STILL_HELD) {
                    synchronized (queue) {
                        releasedOne(owner);
                        queue.putBackFirst(successor); // the owner holds on: the successor waits again
                    }
                    if (!successor.unclaim()) {
                        queue.giveUp(successor);
                    }
                } else {
                    handOffRefused(owner, successor, failure != null, sentAt);
                }
            } finally {
                answered();
            }
        });
    }

    /** Redis confirmed the hand-off sent at {@code sentNanos}: the successor holds the lock. */
    private void handedOver(Ticket successor, long sentNanos) {
        services.watchdog().onHandedOver(successor.protocol, successor.owner, successor.watchdogLease,
                successor.leaseMillis, sentNanos);
        List<Ticket> reentries;
        synchronized (queue) {
            holder.confirm(successor, queues.confirmed());
            reentries = queue.claimReentries(successor.owner);
            budget.handedOff();
            queue.retireIfIdle();
        }
        runner.runReentries(reentries);
        successor.handedOver = true;
        if (!successor.result.complete(true)) {
            runner.giveBack(successor); // it gave up while the lock was on its way
        } else {
            successor.settle();
        }
    }

    /**
     * The holder did not hold the lock any more, or the call's reply was lost ({@code unknown}):
     * forget it, and let the successor ask Redis as head, or queue it first again when a head runs;
     * a successor that gave up meanwhile leaves, and a hand-off to it that may have landed is given
     * back.
     */
    private void handOffRefused(long owner, Ticket successor, boolean unknown, long sentAt) {
        Ticket head = successor;
        synchronized (queue) {
            holder.forgetIfConfirmedBefore(owner, sentAt);
            if (tickets.headRunning()) {
                queue.putBackFirst(successor);
                head = null;
            } else {
                queue.becomeHead(successor);
            }
        }
        if (head == null && !successor.unclaim()) {
            queue.giveUp(successor);
            if (unknown && successor.protocol.claims()) {
                services.abandonments().abandon(successor.protocol, successor.owner, successor.leaseMillis);
            }
        }
        queue.startHead(head);
    }
}
