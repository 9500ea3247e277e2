package dev.padlock.internal.queue;

import dev.padlock.RedisUnavailableException;
import dev.padlock.internal.acquire.AcquireContext;
import dev.padlock.internal.lease.LeaseClock;
import dev.padlock.internal.protocol.LocalHandOff;
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
 * Sends a release of one hold of an owner that its {@link LocalQueue} decided on ({@link
 * LocalQueue#release}), a hand-off or a release on Redis, and tells the queue what the reply says.
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
 * next client in line (see {@link dev.padlock.internal.grant.GrantTurns}). When its message reached
 * other clients, the next local owner first yields ({@link HandOffBudget#yieldNanos}).
 *
 * <p>A reply forgets the holder only when Redis confirmed it before the call was sent (see
 * {@link ConfirmedHolder}). Called outside the queue's monitor, and never takes it: each change of
 * the queue's state is one of the queue's {@link Transitions}, which takes the monitor itself.
 */
final class LocalRelease {
    /** What a release's reply asks of its queue: each takes the queue's monitor (see {@link LocalQueue}). */
    interface Transitions {
        /** The reply to a release came (or its call failed): last of its callback. */
        void onReleaseAnswered();

        /**
         * A release of {@code owner} said holds remain (or may): the holder counts one fewer.
         * Returns whether the owner holds on as this client counts it; if not, what Redis keeps is
         * no hold anyone was told of (an acquisition given up in doubt that landed, given back by
         * itself, or a count left by a lost hold), and it is not renewed.
         */
        boolean onHoldsRemain(long owner);

        /** Whether {@code owner} is the holder, confirmed by {@code sentAt}, with more than one hold. */
        boolean heldMoreThanOnce(long owner, long sentAt);

        /**
         * A release on Redis sent at {@code sentAt} dropped the owner's last hold, found it not held,
         * or failed (unknown: Redis decides next): the holder is forgotten if Redis confirmed it
         * before; the first queued owner becomes head when nobody holds, for the caller to start.
         */
        @Nullable Ticket onReleased(long owner, long sentAt);

        /**
         * A hand-off from {@code owner} found holds remain: it holds on, and {@code successor} is
         * queued first again (the caller then unclaims it, and it gives up if its wait is over).
         */
        void onHandOffHeldOn(long owner, Ticket successor);

        /**
         * Redis confirmed the hand-off: {@code successor} is the holder (one more hand-off of the
         * budget's chain); its queued acquisitions, claimed as re-entries, for the caller to run.
         */
        List<Ticket> onHandedOver(Ticket successor);

        /**
         * The holder did not hold the lock any more, or the hand-off's reply was lost: the holder is
         * forgotten if Redis confirmed it before {@code sentAt}, and the successor becomes head, for
         * the caller to start, or, when a head runs, is queued first again (null).
         */
        @Nullable Ticket onHandOffRefused(long owner, Ticket successor, long sentAt);

        /** {@code ticket} gave up while queued: it leaves. */
        void giveUp(Ticket ticket);

        /** See {@link TicketRunner.Transitions#heldBesides}. */
        int heldBesides(long owner, @Nullable Ticket except);
    }

    private final Transitions queue;
    private final TicketRunner runner;
    private final AcquireContext services;

    LocalRelease(Transitions queue, TicketRunner runner, AcquireContext services) {
        this.queue = queue;
        this.runner = runner;
        this.services = services;
    }

    /** {@code failure} again, for a callback stage that passes its call's failure on. */
    private static CompletionException passOn(Throwable failure) {
        return failure instanceof CompletionException wrapped ? wrapped : new CompletionException(failure);
    }

    /**
     * Releases on Redis; when {@code next} is not null and the lock goes to another client in line,
     * this client gets back in line for {@code next}'s owner. {@code sentAt}: see
     * {@link LocalQueues#confirmations()}.
     */
    CompletableFuture<ReleaseOutcome> releaseOnRedis(LockProtocol protocol, long owner, long sentAt,
            @Nullable Ticket next) {
        Watchdog watchdog = services.watchdog();
        long rearm = watchdog.beforeRelease(protocol, owner) ? watchdog.leaseMillis() : 0;
        long sent = services.clock().nanoTime();
        long nextOwner = next == null ? LocalQueue.NONE : next.owner;
        long nextLease = next == null ? 0 : next.ttlMillis;
        long nextNonce = next == null ? 0 : next.nonce;
        // handled in the reply's own stage: this runs on every uncontended unlock
        LocalHandOff handOff = QueuedPath.handOffOf(protocol);
        return handOff.release(owner, rearm, nextOwner, nextLease, nextNonce, (release, failure) -> {
            boolean inDoubt = false;
            try {
                if (next != null && failure == null && release.granted()) {
                    next.requeuedSentNanos = sent;
                    next.requeued = true;
                }
                ReleaseOutcome outcome = failure == null ? release.outcome() : null;
                inDoubt = outcome == null && othersRemainInDoubt(owner, failure, sentAt);
                // what remains may be no hold the owner was told of: then it is not renewed
                boolean holdsRemain = (outcome == ReleaseOutcome.STILL_HELD || inDoubt) && queue.onHoldsRemain(owner);
                watchdog.afterRelease(protocol, owner, holdsRemain);
                if (!holdsRemain) {
                    long yieldNanos = outcome == null || outcome == ReleaseOutcome.STILL_HELD ? 0
                            : HandOffBudget.yieldNanos(release,
                                    services.wakeUps().isSubscribed(protocol.unlockChannel(LocalQueue.NONE)),
                                    services.clock().nanoTime() - sent);
                    Ticket head = queue.onReleased(owner, sentAt);
                    if (head != null && yieldNanos > 0) {
                        services.timer().newTimeout(timeout -> runner.run(head, true), yieldNanos,
                                TimeUnit.NANOSECONDS);
                    } else if (head != null) {
                        runner.run(head, true);
                    }
                }
            } finally {
                queue.onReleaseAnswered();
            }
            if (inDoubt) {
                // the owner holds on; Redis's count tells, once it answers, whether this hold is still there
                services.abandonments().giveBackIfLanded(protocol, owner, () -> queue.heldBesides(owner, null));
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
        return RedisErrors.unwrap(failure) instanceof RedisUnavailableException
                && queue.heldMoreThanOnce(owner, sentAt);
    }

    /** Passes the lock from {@code owner} to {@code successor} in one call; see the class notes. */
    CompletableFuture<ReleaseOutcome> handOff(LockProtocol protocol, long owner, Ticket successor,
            long sentAt) {
        Watchdog watchdog = services.watchdog();
        long rearm = watchdog.beforeRelease(protocol, owner) ? watchdog.leaseMillis() : 0;
        long sentNanos = services.clock().nanoTime();
        LocalHandOff handOff = QueuedPath.handOffOf(protocol);
        return handOff.handOff(owner, successor.owner, successor.ttlMillis, rearm).whenComplete((outcome, failure) -> {
            try {
                watchdog.afterRelease(protocol, owner, outcome == ReleaseOutcome.STILL_HELD);
                if (outcome == ReleaseOutcome.RELEASED
                        && services.clock().nanoTime() - LeaseClock.endOf(sentNanos, successor.ttlMillis) < 0) {
                    handedOver(successor, sentNanos);
                } else if (outcome == ReleaseOutcome.RELEASED) {
                    // told too late to be taken alone: the successor asks Redis itself, as after a lost reply
                    handOffRefused(owner, successor, true, sentAt);
                } else if (outcome == ReleaseOutcome.STILL_HELD) {
                    queue.onHandOffHeldOn(owner, successor); // the owner holds on: the successor waits again
                    if (!successor.unclaim()) {
                        queue.giveUp(successor);
                        successor.endGivenUp();
                    }
                } else {
                    handOffRefused(owner, successor, failure != null, sentAt);
                }
            } finally {
                queue.onReleaseAnswered();
            }
        });
    }

    /** Redis confirmed the hand-off sent at {@code sentNanos}: the successor holds the lock. */
    private void handedOver(Ticket successor, long sentNanos) {
        services.watchdog().onHandedOver(successor.protocol, successor.owner, successor.leaseMillis, sentNanos);
        runner.runReentries(queue.onHandedOver(successor));
        successor.handedOver = true;
        if (!successor.result.complete(true)) {
            runner.giveBack(successor); // it gave up while the lock was on its way
        } else {
            successor.settle();
        }
    }

    /**
     * The holder did not hold the lock any more, or the call's reply was lost ({@code unknown}):
     * the queue forgets it and the successor asks Redis as head ({@link Transitions#onHandOffRefused}),
     * or waits again when a head runs; a successor that gave up meanwhile leaves, and a hand-off to
     * it that may have landed is given back. That give-back is registered before the successor's
     * caller is told: told, it may acquire again at once, and its new hold must wait for the
     * give-back, which removes the owner's field whatever hold it is.
     */
    private void handOffRefused(long owner, Ticket successor, boolean unknown, long sentAt) {
        Ticket head = queue.onHandOffRefused(owner, successor, sentAt);
        if (head != null) {
            runner.run(head, true);
        } else if (!successor.unclaim()) {
            queue.giveUp(successor);
            if (unknown && successor.protocol.claiming() != null) {
                services.abandonments().abandon(successor.protocol, successor.owner, successor.ttlMillis);
            }
            successor.endGivenUp();
        }
    }
}
