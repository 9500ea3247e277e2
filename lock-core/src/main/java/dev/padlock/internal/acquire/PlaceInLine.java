package dev.padlock.internal.acquire;

import dev.padlock.internal.protocol.LockProtocol;
import dev.padlock.internal.protocol.LockProtocol.Attempt;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquisition's attempts and the place in a line on Redis they may take.
 *
 * <p>For kinds that {@linkplain LockProtocol#grants() grant}, an acquisition with a place nonce
 * takes a place in line for its owner with a failed attempt that will wait, once it hears grants:
 * a claim for kinds that claim, else {@link LockProtocol#tryAcquire(long, long, boolean, long,
 * boolean)}. A release by another client may then grant the lock to that place. An attempt that
 * succeeds leaves the line; one that stops without the lock leaves it with {@link #leave()}, which
 * may find a grant instead, and notes a place it could not leave ({@link #leftBehind()}). For other
 * kinds, any attempt that will wait may have queued the owner, and a stop forgets it
 * ({@link LockProtocol#leaveQueue(long)}).
 *
 * <p>Confined to the acquisition's loop, except {@link #leftBehind()}.
 */
final class PlaceInLine {
    private static final Logger log = LoggerFactory.getLogger(PlaceInLine.class);

    private final LockProtocol protocol;
    private final long owner;
    private final long leaseMillis;
    private final boolean claim;
    /**
     * Whether the attempts of a kind that does not claim start a new hold count (see
     * {@link LockProtocol#tryAcquire(long, long, boolean, long, boolean, boolean)}); set before the first.
     */
    private boolean newCount;
    private final boolean oneAttempt;
    /** Identifies the place and the grant answering it; 0: the acquisition takes none. */
    private final long nonce;
    /** Whether this client may be in line for the owner (an attempt got it in line, or a release put it back). */
    private boolean inLine;
    /** Whether an attempt that may have queued the owner was sent and not yet answered "acquired". */
    private boolean mayBeQueued;
    private volatile boolean leftBehind;
    /** Runs as a place is left behind, before the acquisition's caller is told; null: nothing. */
    private volatile Runnable onLeftBehind;

    /**
     * @param claim whether the owner's attempts are claims
     * @param nonce the place nonce; 0 for none
     * @param inLine whether a release already put this client in line for the owner with it
     */
    PlaceInLine(LockProtocol protocol, long owner, long leaseMillis, boolean claim, boolean oneAttempt, long nonce,
            boolean inLine) {
        this.protocol = protocol;
        this.owner = owner;
        this.leaseMillis = leaseMillis;
        this.claim = claim;
        this.oneAttempt = oneAttempt;
        this.nonce = nonce;
        this.inLine = inLine && nonce != 0;
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
            long place = hearsGrants ? nonce : 0;
            if (claim) {
                return protocol.tryClaim(leaseMillis, owner, !oneAttempt, place, inLine);
            }
            if (place != 0 && !oneAttempt) {
                CompletableFuture<Attempt> reply = protocol.tryAcquire(leaseMillis, owner, true, place, inLine, newCount);
                inLine = true; // taken by this attempt unless it acquires; maybe so when its reply is lost
                return reply;
            }
            return newCount ? protocol.tryAcquire(leaseMillis, owner, !oneAttempt, 0, false, true)
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
    }

    /** The owner holds: a successful attempt left the line (and any queue), a grant took the place. */
    void held() {
        mayBeQueued = false;
        inLine = false;
    }

    /**
     * The acquisition stops without the lock: leaves the line, or the queue, it may be in. A kind
     * that grants keeps a place in line only for an acquisition whose attempt took one.
     *
     * @return null when there is nothing to leave; else completes with whether it found a grant to
     *     the owner instead, which the owner then holds (false too when leaving failed)
     */
    CompletableFuture<Boolean> leave() {
        boolean leave = protocol.grants() ? inLine : mayBeQueued;
        mayBeQueued = false;
        inLine = false;
        if (!leave) {
            return null;
        }
        boolean byNonce = nonce != 0 && !claim;
        CompletableFuture<Boolean> left = byNonce ? protocol.leaveQueue(owner, leaseMillis, nonce)
                : protocol.leaveQueue(owner).thenApply(ignored -> false);
        return left.handle((held, failure) -> {
            if (failure == null) {
                return Boolean.TRUE.equals(held);
            }
            log.debug("could not leave the queue of lock '{}'; the entry expires by itself: {}", protocol.name(),
                    failure.toString());
            leftBehind = byNonce;
            Runnable hook = onLeftBehind;
            if (byNonce && hook != null) {
                hook.run();
            }
            return false;
        });
    }

    /**
     * Whether the acquisition stopped without the lock while its place may still be in line on
     * Redis (leaving failed): a grant to that place holds the lock for nobody.
     */
    boolean leftBehind() {
        return leftBehind;
    }

    /** Sets what runs as a place is left behind, before the acquisition's caller is told (null: nothing). */
    void onLeftBehind(Runnable hook) {
        this.onLeftBehind = hook;
    }
}
