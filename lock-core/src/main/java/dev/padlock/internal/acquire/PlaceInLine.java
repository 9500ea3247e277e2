package dev.padlock.internal.acquire;

import static dev.padlock.internal.base.Nulls.castToNonNull;

import dev.padlock.internal.protocol.Claiming;
import dev.padlock.internal.protocol.Granting;
import dev.padlock.internal.protocol.LockProtocol;
import dev.padlock.internal.protocol.LockProtocol.Attempt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquisition's attempts and the place in a line on Redis they may take.
 *
 * <p>For kinds that {@linkplain LockProtocol#granting() grant}, an acquisition with a place nonce
 * takes a place in line for its owner with a failed attempt that will wait, once it hears grants:
 * a claim for kinds that claim, else {@link Granting#tryAcquire(long, long, boolean, long,
 * boolean, boolean)}. A release by another client may then grant the lock to that place. An attempt that
 * succeeds leaves the line; one that stops without the lock leaves it with {@link #leave()}, which
 * may find a grant instead, and notes a place it could not leave ({@link #leftBehind()}). For other
 * kinds, any attempt that will wait may have queued the owner, and a stop forgets it
 * ({@link LockProtocol#leaveQueue(long)}).
 *
 * <p><b>A place left behind.</b> When the leave's reply is lost (a timeout, a drop: it may not
 * have run, or, as an {@code EVALSHA} answered {@code NOSCRIPT} too late for its {@code EVAL},
 * surely did not), the caller is told at once and the leave is sent again while Redis does not
 * answer ({@link Abandonments#leaveAgain}, see {@link #stillLeaving()}). A grant that reached the
 * place meanwhile holds the lock for nobody: whoever finds it first, the leave sent again (it
 * answers "a grant") or the grant's message ({@link #giveBackGrant()}), gives it back, once.
 *
 * <p>Confined to the acquisition's loop, except {@link #leftBehind()} and {@link #giveBackGrant()}.
 */
final class PlaceInLine {
    private static final Logger log = LoggerFactory.getLogger(PlaceInLine.class);
    @SuppressWarnings("rawtypes")
    private static final AtomicReferenceFieldUpdater<PlaceInLine, CompletableFuture> GIVING_BACK =
            AtomicReferenceFieldUpdater.newUpdater(PlaceInLine.class, CompletableFuture.class, "givingBack");

    private final LockProtocol protocol;
    /** The kind's claims; null when it does not claim. */
    private final @Nullable Claiming claiming;
    /** The kind's line; null when it has none. */
    private final @Nullable Granting granting;
    private final Abandonments abandonments;
    private final long owner;
    private final long leaseMillis;
    /** Whether the attempts are claims; from the start, or once {@link #claimFromNowOn()} said so. */
    private boolean claim;
    /**
     * Whether the attempts of a kind that does not claim start a new hold count (see
     * {@link Granting#tryAcquire(long, long, boolean, long, boolean, boolean)}); set before the first.
     */
    private boolean newCount;
    private final boolean oneAttempt;
    /** Identifies the place and the grant answering it; 0: the acquisition takes none. */
    private final long nonce;
    /** Whether this client may be in line for the owner (an attempt got it in line, or a release put it back). */
    private boolean inLine;
    /** Whether it is in line for sure: an answer said so, or a release put it back; not a lost reply. */
    private boolean inLineAnswered;
    /** Whether an attempt that may have queued the owner was sent and not yet answered "acquired". */
    private boolean mayBeQueued;
    private volatile boolean leftBehind;
    /** Runs as a place is left behind, before the acquisition's caller is told; null: nothing. */
    private volatile @Nullable Runnable onLeftBehind;
    /** The leave of a place left behind, sent again until Redis answers; null when none is. */
    private @Nullable CompletableFuture<Void> stillLeaving;
    /**
     * Tells whether the owner's field that a leave sent again finds may be the owner's other holds
     * (a re-entry's), and then gives back by the hold count; null: a field found is a grant.
     */
    private volatile @Nullable LostReplies otherHolds;
    /** The give-back of a grant to the place left behind, once one is under way: see {@link #giveBackGrant()}. */
    private volatile @Nullable CompletableFuture<Void> givingBack;

    /**
     * @param claim whether the owner's attempts are claims
     * @param nonce the place nonce; 0 for none
     * @param inLine whether a release already put this client in line for the owner with it
     */
    PlaceInLine(LockProtocol protocol, Abandonments abandonments, long owner, long leaseMillis, boolean claim,
            boolean oneAttempt, long nonce, boolean inLine) {
        this.protocol = protocol;
        this.claiming = protocol.claiming();
        this.granting = protocol.granting();
        this.abandonments = abandonments;
        this.owner = owner;
        this.leaseMillis = leaseMillis;
        this.claim = claim;
        this.oneAttempt = oneAttempt;
        this.nonce = nonce;
        this.inLine = inLine && nonce != 0;
        this.inLineAnswered = this.inLine; // a release put it back in line
    }

    /**
     * The next attempts start the owner's hold count afresh, as a first hold does: a claim for the
     * kinds that claim, else an attempt that starts a new count. What the owner's field holds on
     * Redis then counts once, for this acquisition.
     */
    void claimFromNowOn() {
        if (claiming != null) {
            claim = true;
        } else {
            newCount = true;
        }
    }

    /** The attempts start a new hold count: the owner's last unlock could not be confirmed. Before the first. */
    void startNewCount() {
        newCount = true;
    }

    /** The nonce of the place; 0 when the acquisition takes none. */
    long nonce() {
        return nonce;
    }

    /** Whether this client may be in line for the owner. */
    boolean inLine() {
        return inLine;
    }

    /**
     * Sends one attempt: a claim, an attempt that takes the place, or a plain attempt.
     *
     * @param hearsGrants whether the grant channel is subscribed: only then does it take the place
     * @return the reply; failed, rather than thrown, when the kind throws
     */
    CompletableFuture<Attempt> attempt(boolean hearsGrants) {
        sent(!oneAttempt);
        try {
            long place = hearsGrants ? nonce : 0; // a nonce only with a line
            Claiming claims = claiming;
            if (claim && claims != null) {
                return claims.tryClaim(leaseMillis, owner, !oneAttempt, place, inLine);
            }
            Granting grants = granting;
            if (grants == null) {
                return protocol.tryAcquire(leaseMillis, owner, !oneAttempt);
            }
            if (place != 0 && !oneAttempt) {
                CompletableFuture<Attempt> reply = grants.tryAcquire(leaseMillis, owner, true, place, inLine, newCount);
                inLine = true; // taken by this attempt unless it acquires; maybe so when its reply is lost
                return reply;
            }
            return newCount ? grants.tryAcquire(leaseMillis, owner, !oneAttempt, 0, false, true)
                    : protocol.tryAcquire(leaseMillis, owner, !oneAttempt);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * An attempt was sent for this acquisition before it began (see
     * {@link LockAcquisition#resume}), without a place: one that will wait may have queued the owner.
     */
    void sent(boolean willWait) {
        mayBeQueued |= willWait;
    }

    /**
     * Redis answered an attempt: a failed claim that will wait, answered while {@code hearsGrants},
     * got this client in line.
     */
    void answered(Attempt attempt, boolean hearsGrants) {
        if (!attempt.acquired() && claim && hearsGrants && !oneAttempt) {
            inLine = true;
        }
        inLineAnswered = inLine && !attempt.acquired();
    }

    /**
     * Redis counts no hold of the owner's attempts whose replies were lost while it held the lock:
     * none of them ran as the owner held, so none took a place; this client is in line only as far
     * as an answer said. (A later attempt sent as in line would take the owner's field for a grant
     * and hold once instead of re-entering.)
     */
    void lostAttemptsTookNoPlace() {
        inLine = inLineAnswered;
    }

    /** The owner holds: a successful attempt left the line (and any queue), a grant took the place. */
    void held() {
        mayBeQueued = false;
        inLine = false;
    }

    /**
     * The acquisition stops without the lock: leaves the line, or the queue, it may be in. A kind
     * that grants keeps a place in line only for an acquisition whose attempt took one. A leave of
     * a place whose reply is lost leaves the place behind, and is sent again
     * ({@link #stillLeaving()}).
     *
     * @return null when there is nothing to leave; else completes with whether it found a grant to
     *     the owner instead, which the owner then holds (false too when leaving failed)
     */
    @Nullable CompletableFuture<Boolean> leave() {
        boolean leave = granting != null ? inLine : mayBeQueued;
        mayBeQueued = false;
        inLine = false;
        if (!leave) {
            return null;
        }
        boolean byNonce = nonce != 0 && !claim; // a nonce only with a line
        CompletableFuture<Boolean> left = byNonce ? leavePlace() : protocol.leaveQueue(owner).thenApply(ignored -> false);
        return left.handle((held, failure) -> {
            if (failure == null) {
                return Boolean.TRUE.equals(held);
            }
            if (!byNonce) {
                log.debug("could not leave the queue of lock '{}'; the entry expires by itself: {}", protocol.name(),
                        failure.toString());
                return false;
            }
            leftBehind = true;
            Runnable hook = onLeftBehind;
            if (hook != null) {
                hook.run();
            }
            if (LostReplies.isLost(failure)) {
                log.debug("lock '{}': the leave of {}'s place in line went unanswered; sending it again: {}",
                        protocol.name(), protocol.ownerField(owner), failure.toString());
                stillLeaving = abandonments.leaveAgain(this::leavePlace).handle(this::leftAgain)
                        .thenCompose(given -> given);
            } else {
                log.warn("lock '{}': could not leave {}'s place in line; a grant to it is given back: {}",
                        protocol.name(), protocol.ownerField(owner), failure.toString());
            }
            return false;
        });
    }

    private CompletableFuture<Boolean> leavePlace() {
        try {
            return castToNonNull(granting).leaveQueue(owner, leaseMillis, nonce); // a nonce only with a line
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The leave sent again was answered (a grant found is given back), or its retries stopped. */
    private CompletableFuture<Void> leftAgain(Boolean granted, Throwable failure) {
        if (failure instanceof Abandonments.ClientClosing) {
            return CompletableFuture.completedFuture(null);
        }
        if (failure != null) {
            log.warn("lock '{}': could not leave {}'s place in line; a grant to it is given back: {}",
                    protocol.name(), protocol.ownerField(owner), failure.toString());
            return CompletableFuture.completedFuture(null);
        }
        leftBehind = false;
        LostReplies counted = otherHolds;
        if (Boolean.TRUE.equals(granted) && counted != null && counted.fieldMayBeOtherHolds()) {
            // the owner's other holds, or the attempt in doubt that re-entered: the hold count
            // tells; a release would remove a hold the owner was told of when the attempt never ran
            counted.giveUpByCount();
            return CompletableFuture.completedFuture(null);
        }
        // the leave kept the grant, with the owner's lease: nobody waits for it any more
        return Boolean.TRUE.equals(granted) ? giveBackGrant() : CompletableFuture.completedFuture(null);
    }

    /**
     * The leave of a place left behind, sent again until Redis answers it and, when it found a grant,
     * until that was given back; null when no leave is sent again. Set once {@link #leave()}'s
     * result completes.
     */
    @Nullable CompletableFuture<Void> stillLeaving() {
        return stillLeaving;
    }

    /**
     * A grant reached the place left behind, and holds the lock for nobody: gives it back (one
     * release, however many find the grant); completes once that release is answered (or failed,
     * which is logged: the grant's lease then ends it).
     */
    CompletableFuture<Void> giveBackGrant() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (!GIVING_BACK.compareAndSet(this, null, done)) {
            return castToNonNull(givingBack); // one release: whoever found the grant second waits for the first one's
        }
        CompletableFuture<LockProtocol.Release> release;
        try {
            release = protocol.release(owner, 0);
        } catch (RuntimeException e) {
            release = CompletableFuture.failedFuture(e);
        }
        release.whenComplete((released, failure) -> {
            if (failure != null) {
                log.warn("could not give back lock '{}' granted to {} after its wait ended; its lease will expire: {}",
                        protocol.name(), protocol.ownerField(owner), failure.toString());
            }
            done.complete(null);
        });
        return done;
    }

    /**
     * Whether the acquisition stopped without the lock while its place may still be in line on
     * Redis (leaving failed): a grant to that place holds the lock for nobody.
     */
    boolean leftBehind() {
        return leftBehind;
    }

    /**
     * The owner's holds are counted by {@code lostReplies}: an owner's field that a leave sent again
     * finds is given back by the hold count when it may be the owner's other holds, as a first
     * leave's is (see {@link LostReplies#fieldMayBeOtherHolds()}). Before the first attempt.
     */
    void countsOtherHoldsBy(LostReplies lostReplies) {
        this.otherHolds = lostReplies;
    }

    /** Sets what runs as a place is left behind, before the acquisition's caller is told (null: nothing). */
    void onLeftBehind(Runnable hook) {
        this.onLeftBehind = hook;
    }
}
