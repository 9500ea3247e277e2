package dev.padlock.internal.acquire;

import static dev.padlock.internal.base.Nulls.castToNonNull;

import dev.padlock.RedisUnavailableException;
import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.base.WaitBudget;
import dev.padlock.internal.protocol.LockProtocol;
import dev.padlock.internal.protocol.LockProtocol.Attempt;
import dev.padlock.internal.redis.RedisErrors;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquisition's calls whose reply was lost (connection reset, command timeout, failover: a
 * {@link RedisUnavailableException}): each may or may not have landed, and the acquisition finds
 * out, never guesses.
 *
 * <ul>
 *   <li><b>How.</b> A first hold of an owner that holds nothing ({@code claim}, for kinds that
 *       {@linkplain LockProtocol#claiming() claim}) sends its idempotent claim again, so the answer
 *       is the outcome; any other attempt asks whether the owner's field is in the lock
 *       ({@link #confirm()}), and goes on waiting if it is not.</li>
 *   <li><b>When.</b> After a pause that doubles from 10 to 200 ms while Redis does not answer, and
 *       starts afresh once it does.</li>
 *   <li><b>Until.</b> The wait plus twice the command timeout from the first of the unanswered
 *       calls in a row (twice the command timeout for an unbounded wait); then the caller gets the
 *       exception.</li>
 *   <li><b>Giving up.</b> A claim given up on while its outcome is unknown is given back by
 *       {@link Abandonments}; an attempt whose owner's holds are counted ({@link HeldBefore}) is
 *       given back if Redis counts it; the same owner's next acquisition of the lock waits for
 *       that first. Any other attempt holds, if it landed, until its lease ends.</li>
 * </ul>
 *
 * Confined to the acquisition's loop, except {@link #lastUnanswered()}.
 */
final class LostReplies {
    private static final Logger log = LoggerFactory.getLogger(LostReplies.class);
    /** First and largest pause before finding out what a call with a lost reply did. */
    private static final long MIN_DOUBT_MILLIS = 10;
    private static final long MAX_DOUBT_MILLIS = 200;

    private final LockProtocol protocol;
    private final long owner;
    private final long leaseMillis;
    private final boolean claim;
    /** Whether an attempt sent again finds out by itself: a claim, or an attempt that starts a new count. */
    private boolean idempotent;
    private final WaitBudget budget;
    private final long commandTimeoutMillis;
    private final EngineClock clock;
    private final Abandonments abandonments;
    /** Null unless this client counts the owner's holds of the lock (see {@link HeldBefore}). */
    private @Nullable HeldBefore heldBefore;
    /** The holds the last {@link #confirm()} counted besides the attempts in doubt; UNKNOWN when it did not count. */
    private int countedBefore = HeldBefore.UNKNOWN;
    /** The pauses between finding out; made by the first lost reply. */
    private @Nullable Backoff pauses;
    /** Whether a call was sent whose reply was lost and whose outcome Redis has not told yet. */
    private boolean inDoubt;
    /** {@link EngineClock#nanoTime()} of the first of the unanswered calls in a row; 0 when the last was answered. */
    private long unansweredSince;
    private volatile @Nullable Throwable lastUnanswered;

    /**
     * @param claim whether the owner's attempts are claims, which are sent again to find out and
     *     given back on giving up
     */
    LostReplies(LockProtocol protocol, long owner, long leaseMillis, boolean claim, WaitBudget budget,
            long commandTimeoutMillis, EngineClock clock, Abandonments abandonments) {
        this.protocol = protocol;
        this.owner = owner;
        this.leaseMillis = leaseMillis;
        this.claim = claim;
        this.idempotent = claim;
        this.budget = budget;
        this.commandTimeoutMillis = commandTimeoutMillis;
        this.clock = clock;
        this.abandonments = abandonments;
    }

    /**
     * The give-back of this owner's earlier claim of the lock, while one is under way (see
     * {@link Abandonments}); else null. The owner attempts only once it is done: an attempt sent
     * before could be taken back by it.
     */
    @Nullable CompletableFuture<Void> pendingGiveBack() {
        return abandonments.pending(protocol, owner);
    }

    /**
     * The attempts start a new hold count, so one sent again finds out by itself, as a claim does
     * (they are not given back: their kind cannot). Before the first.
     */
    void attemptsFindOut() {
        idempotent = true;
    }

    /** Whether {@code failure} is a lost reply (else it is Redis's own answer, which ends the acquisition). */
    static boolean isLost(Throwable failure) {
        return RedisErrors.unwrap(failure) instanceof RedisUnavailableException;
    }

    /** A call's reply was lost: its outcome is in doubt. */
    void lost(Throwable failure) {
        inDoubt = true; // it may have landed (a claim sent again: the first may have)
        lastUnanswered = failure;
        if (unansweredSince == 0) {
            unansweredSince = clock.nanoTime();
        }
    }

    /**
     * The pause before finding out what the calls in doubt did, in milliseconds, within the bound;
     * 0 when the bound is spent: give up.
     */
    long pauseMillis() {
        long bound = boundMillis(unansweredSince) - clock.millisSince(unansweredSince);
        if (bound <= 0) {
            return 0;
        }
        log.debug("lock '{}': no answer from Redis for {} ({}); finding out again", protocol.name(),
                protocol.ownerField(owner), String.valueOf(lastUnanswered));
        if (pauses == null) {
            pauses = new Backoff(MIN_DOUBT_MILLIS, MAX_DOUBT_MILLIS);
        }
        return Math.min(pauses.next(), bound);
    }

    /** Redis answered: the outcome of every earlier call is known. */
    void answered() {
        inDoubt = false;
        lastUnanswered = null;
        unansweredSince = 0;
        if (pauses != null) {
            pauses.reset();
        }
    }

    /** The owner holds: whatever was unanswered, it holds once. */
    void held() {
        inDoubt = false;
    }

    /**
     * Whether the next attempt finds out by itself: nothing is in doubt, or the attempt is a claim
     * (its answer is the outcome); otherwise {@link #confirm()} first.
     */
    boolean attemptFindsOut() {
        return !inDoubt || idempotent;
    }

    /**
     * The owner's holds are counted: {@code heldBefore} says how many holds the owner has besides the
     * one in doubt (see {@link HeldBefore}). Before the first.
     */
    void reentries(HeldBefore heldBefore) {
        this.heldBefore = heldBefore;
    }

    /**
     * Asks Redis whether the attempt in doubt landed: for a re-entry, whether the owner's hold count
     * is above the holds it had besides it (its other holds confirm nothing); else whether the
     * owner's field is in the lock. Acquired if so.
     */
    CompletableFuture<Attempt> confirm() {
        try {
            int before = heldBefore == null ? HeldBefore.UNKNOWN : heldBefore.count();
            if (before == HeldBefore.NOT_YET) {
                // a release of the same owner in flight could move the count: ask once it is answered
                return CompletableFuture.failedFuture(new RedisUnavailableException("lock '" + protocol.name()
                        + "': the re-entry by " + protocol.ownerField(owner) + " whose reply was lost is confirmed"
                        + " once its release in flight is answered", lastUnanswered));
            }
            countedBefore = before;
            return before == HeldBefore.UNKNOWN ? protocol.confirm(owner) : protocol.confirmReentry(owner, before);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Whether this is a counted acquisition (a re-entry) whose owner this client now counts no
     * hold of (its lease was lost, its unlocks released the rest, or an unlock could not be
     * confirmed): Redis's count cannot tell whether the attempt in doubt landed, since the owner's
     * field may hold what an unconfirmed unlock left.
     */
    boolean countedOwnerHoldsNone() {
        return heldBefore != null && heldBefore.count() == 0;
    }

    /**
     * Whether the owner's field, found by a leave as the acquisition gave up, may be the owner's
     * other holds rather than a grant to this one: the owner's holds are counted, and it has (or
     * may have) some besides this acquisition. A grant reaches only an owner that held nothing.
     */
    boolean fieldMayBeOtherHolds() {
        return heldBefore != null && heldBefore.count() != 0;
    }

    /**
     * {@link #giveUp()} once a leave found the owner's field while it had other holds
     * ({@link #fieldMayBeOtherHolds}): a grant to this acquisition, if one landed, shows in the
     * owner's hold count, and is given back.
     */
    void giveUpByCount() {
        inDoubt = false;
        abandonments.giveBackIfLanded(protocol, owner, castToNonNull(heldBefore)); // see fieldMayBeOtherHolds
    }

    /**
     * {@link #giveUp()} for a claim in doubt, as the acquisition starts to stop: a claim is given
     * back whatever leaving its place finds (a claim and a grant make one hold). Nothing else.
     */
    void giveUpClaim() {
        if (inDoubt && claim) {
            inDoubt = false;
            abandonments.abandon(protocol, owner, leaseMillis);
        }
    }

    /**
     * Whether the last {@link #confirm()} found the attempts in doubt not landed while the owner held
     * other holds: none of them ran as the owner held (a run would have re-entered).
     */
    boolean notLandedWhileHolding() {
        return countedBefore > 0;
    }

    /**
     * The acquisition stops without the lock, its caller about to be told so: what may have
     * landed must not stay. A claim is given back ({@link Abandonments}), and so is a counted
     * attempt that Redis counts; any other attempt holds, if it landed, until its lease ends,
     * which is logged.
     */
    void giveUp() {
        giveUpClaim();
        if (!inDoubt) {
            return;
        }
        inDoubt = false;
        if (heldBefore != null) {
            abandonments.giveBackIfLanded(protocol, owner, heldBefore);
        } else {
            log.warn("lock '{}': gave up on an acquisition by {} whose reply was lost; if it landed, its hold"
                    + " stays until its lease ends", protocol.name(), protocol.ownerField(owner));
        }
    }

    /**
     * How long from now unanswered calls may go on: to the end of the wait plus twice the command
     * timeout, or twice the command timeout for an unbounded wait.
     */
    long boundMillisFromNow() {
        return boundMillis(clock.nanoTime());
    }

    private long boundMillis(long sinceNanos) {
        return budget.boundMillisFrom(sinceNanos, 2 * commandTimeoutMillis);
    }

    /** The failure of the last call Redis did not answer, while the acquisition rides it out; else null. */
    @Nullable Throwable lastUnanswered() {
        return lastUnanswered;
    }
}
