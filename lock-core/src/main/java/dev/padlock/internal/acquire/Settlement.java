package dev.padlock.internal.acquire;

import dev.padlock.internal.lease.LeaseClock;
import dev.padlock.internal.lease.LeaseMillis;
import dev.padlock.internal.protocol.LockProtocol;
import dev.padlock.internal.protocol.LockProtocol.ReleaseOutcome;
import dev.padlock.internal.redis.RedisErrors;
import dev.padlock.internal.renewal.Watchdog;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How one acquisition ends: its {@link #result()} and {@link #settled()}, and what is done before
 * either completes, so that a caller that is told finds nothing left behind.
 *
 * <ul>
 *   <li><b>Held</b> ({@link #held()}): the subscriptions are given back, the watchdog starts, the
 *       hook runs, and the caller is told; a hold that lands after its caller cancelled is
 *       released again (one hold: a re-entry keeps the rest).</li>
 *   <li><b>Stopped</b> without the lock ({@link #stop}): the subscriptions are given back, then a
 *       claim whose outcome is unknown ({@link LostReplies#giveUp()}), then the place in line
 *       ({@link PlaceInLine#leave()}); only then is the caller told. A stop turns into a hold when
 *       a grant came first, or when leaving the line found one. A leave whose reply was lost is
 *       sent again after the caller is told ({@link PlaceInLine#stillLeaving()}): the acquisition
 *       settles once Redis answered it, and the owner's next acquisition of the lock waits for
 *       that.</li>
 * </ul>
 *
 * Confined to the acquisition's loop; {@link #result()} may be cancelled from anywhere.
 */
final class Settlement {
    private static final Logger log = LoggerFactory.getLogger(Settlement.class);

    private final LockProtocol protocol;
    private final long owner;
    /** The lease asked for: fixed, or {@link LeaseMillis#WATCHDOG}. */
    private final long leaseMillis;
    /** The TTL it sets on Redis. */
    private final long ttlMillis;
    private final Watchdog watchdog;
    private final AcquireContext context;
    /** Told when a hold confirmed too late was not found again (with the failure, if the check failed). */
    private final Consumer<Throwable> notHeld;
    private final GrantLatch latch;
    private final LostReplies lostReplies;
    private final PlaceInLine place;
    private final Subscriptions subscriptions;
    private final CompletableFuture<Boolean> result = new CompletableFuture<>();
    private final CompletableFuture<Void> settled = new CompletableFuture<>();
    /** Runs once the owner holds, before its caller is told: see {@link #beforeTold}. */
    private volatile @Nullable Runnable beforeTold;
    /** Undoes {@link #beforeTold} for a hold whose caller cancelled before it was told. */
    private volatile @Nullable Runnable untold;
    /** When the request was sent that, if the owner holds, set its TTL no earlier: see {@link #ttlSentAt}. */
    private volatile long ttlSentNanos;
    /**
     * No grant to this acquisition's place was written before this: when it started, or when a
     * release put its client in line for it (see {@link #inLineSince}). A grant message carries no
     * time, and one read after a pause may be older than the last attempt answered since (that
     * attempt, sent as the process resumed, was refused because the grant had run out), so a grant
     * is timed from here, not from that attempt.
     */
    private volatile long grantsSinceNanos;

    Settlement(LockProtocol protocol, long owner, long leaseMillis, AcquireContext context,
            GrantLatch latch, LostReplies lostReplies, PlaceInLine place, Subscriptions subscriptions,
            long startNanos, Consumer<Throwable> notHeld) {
        this.protocol = protocol;
        this.context = context;
        this.notHeld = notHeld;
        this.owner = owner;
        this.leaseMillis = leaseMillis;
        this.ttlSentNanos = startNanos;
        this.grantsSinceNanos = startNanos;
        this.watchdog = context.watchdog();
        this.ttlMillis = LeaseMillis.ttlMillis(leaseMillis, watchdog.leaseMillis());
        this.latch = latch;
        this.lostReplies = lostReplies;
        this.place = place;
        this.subscriptions = subscriptions;
    }

    /** Whether the lock was acquired; cancelled by a caller that stops waiting. */
    CompletableFuture<Boolean> result() {
        return result;
    }

    /** Completes once the acquisition has stopped and given back whatever it had. */
    CompletableFuture<Void> settled() {
        return settled;
    }

    /**
     * Sets what runs once the owner holds, before its caller is told, and what undoes it when the
     * caller cancelled in between, so the hold is given back untold (nulls: nothing).
     */
    void beforeTold(Runnable hook, Runnable untold) {
        this.beforeTold = hook;
        this.untold = untold;
    }

    /**
     * Redis answered an attempt sent at {@code sentNanos}: a hold from now on was set by it (its
     * reply) or after it ran (a grant, found by a later call), so its TTL counts from no earlier.
     */
    void ttlSentAt(long sentNanos) {
        this.ttlSentNanos = sentNanos;
    }

    /** A release sent at {@code sentNanos} put this client in line for the owner: see {@link #grantsSinceNanos}. */
    void inLineSince(long sentNanos) {
        this.ttlSentNanos = sentNanos;
        this.grantsSinceNanos = Math.min(grantsSinceNanos, sentNanos);
    }

    /** The loop never began: {@code false}, with nothing to give back. */
    void endUnbegun() {
        latch.end();
        result.complete(false);
        settled.complete(null);
    }

    /**
     * Redis put or found the owner's field (or a grant message said so): the owner holds, once that
     * news is fresh (see {@link #confirmAgain}).
     */
    void held() {
        if (latch.isGranted() && grantsSinceNanos - ttlSentNanos < 0) {
            ttlSentNanos = grantsSinceNanos; // a grant message may be older than the last attempt answered
        }
        if (!result.isDone() && (context.clock().nanoTime() - LeaseClock.endOf(ttlSentNanos, ttlMillis) >= 0
                || watchdog.toldLostAfter(protocol, owner, ttlSentNanos))) {
            // news too old for its lease, or older than a loss the owner was told of since: told
            // "held" now, the owner could hear that loss after it and take this hold as lost too
            confirmAgain();
            return;
        }
        latch.held();
        lostReplies.held();
        place.held();
        subscriptions.close();
        boolean renewed = false;
        if (!result.isDone()) {
            watchdog.onAcquired(protocol, owner, leaseMillis, ttlSentNanos);
            Runnable hook = beforeTold;
            if (hook != null) {
                hook.run();
            }
            if (result.complete(true)) {
                settle();
                return;
            }
            Runnable undo = untold;
            if (hook != null && undo != null) {
                undo.run(); // cancelled between the hook and the telling: the hold goes back untold
            }
            renewed = watchdog.beforeRelease(protocol, owner);
        }
        // cancelled while the acquisition was on its way: give it back (one hold: a re-entry keeps the rest)
        boolean paused = renewed;
        protocol.release(owner, renewed ? watchdog.leaseMillis() : 0).whenComplete((release, failure) -> {
            if (paused) {
                boolean stillHeld = failure == null && release.outcome() == ReleaseOutcome.STILL_HELD;
                watchdog.afterRelease(protocol, owner, stillHeld);
            }
            if (failure != null) {
                log.warn("could not give back lock '{}' after its acquisition was cancelled; its lease will expire: {}",
                        protocol.name(), failure.toString());
            }
            settle();
        });
    }

    /**
     * A grant came, but an attempt answered after it found no field of the owner: the grant is taken
     * only once Redis confirms the field ({@link #confirmAgain}).
     */
    void confirmGrant() {
        if (result.isDone()) {
            held(); // told nobody yet: held() gives it back
            return;
        }
        confirmAgain();
    }

    /**
     * The news of the hold came after the lease it set could have run out (counted from the send of
     * the attempt it answers: a pause, a slow network): it is not taken on its own. The owner's
     * lease is set again; found, it holds from that call's send; not found (or the call failed), the
     * grant is revoked and the loop told ({@link #notHeld}).
     */
    private void confirmAgain() {
        long sentNanos = context.clock().nanoTime();
        protocol.renew(context.scripts(), owner, ttlMillis).whenComplete((found, failure) -> {
            if (failure == null && found) {
                ttlSentNanos = sentNanos;
                grantsSinceNanos = sentNanos; // Redis found the field: the hold counts from this call
                held();
            } else {
                latch.revoke();
                notHeld.accept(failure);
            }
        });
    }

    /** Stops with {@code failure} (unwrapped) as the result. */
    void fail(Throwable failure) {
        stop(() -> result.completeExceptionally(RedisErrors.unwrap(failure)));
    }

    /** Stops once the result is already settled (told, or cancelled). */
    void settle() {
        stop(() -> { });
    }

    /**
     * Stops without the lock: gives back the subscriptions and any place in line on Redis, then
     * what a lost reply may have left (unless leaving found a grant, which the owner then holds),
     * then runs {@code complete} (which settles the result), then completes {@link #settled}.
     * Leaving the line comes first, so a caller that tries again at once is queued anew.
     */
    void stop(Runnable complete) {
        if (!latch.stop()) {
            held(); // a grant came before the caller was told otherwise
            return;
        }
        subscriptions.close();
        lostReplies.giveUpClaim();
        CompletableFuture<Boolean> left = place.leave();
        if (left == null) {
            lostReplies.giveUp(); // the caller is told it failed: what may have landed must not stay
            complete.run();
            settled.complete(null);
            return;
        }
        left.whenComplete((held, failure) -> {
            boolean fieldFound = Boolean.TRUE.equals(held);
            if (fieldFound && !lostReplies.fieldMayBeOtherHolds()) {
                held(); // a grant came as it gave up, and the caller was not told yet: it holds
                return;
            }
            CompletableFuture<Void> stillLeaving = place.stillLeaving();
            if (fieldFound) {
                // the owner's other holds, or a grant to this one: the hold count tells
                lostReplies.giveUpByCount();
            } else if (stillLeaving != null) {
                // what the leave sent again finds (a grant, or the attempt in doubt that took the
                // place) is given back: the owner's next acquisition waits for it
                context.abandonments().awaitSettle(protocol, owner, settled);
            } else {
                // only now: a leave that finds a grant makes the owner hold, and nothing is given back
                lostReplies.giveUp();
            }
            complete.run();
            if (stillLeaving == null) {
                settled.complete(null);
            } else {
                stillLeaving.whenComplete((ignored, leaveFailure) -> settled.complete(null));
            }
        });
    }
}
