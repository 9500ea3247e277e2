package dev.padlock.internal.renewal;

import static dev.padlock.internal.base.Nulls.castToNonNull;

import dev.padlock.internal.lease.LeaseClock;
import dev.padlock.internal.protocol.LockProtocol;
import io.netty.util.Timeout;
import org.jspecify.annotations.Nullable;

/**
 * The renewal of one owner of one lock: its state ({@code ACTIVE <-> RELEASING -> ENDED | LOST}),
 * and its last confirmed end, the earliest moment the TTL Redis last confirmed for it can run out
 * ({@link LeaseClock#endOf}: the send time of the request that set it, plus its lease, less the
 * drift margin). Changes are made under its monitor; the {@link Watchdog} changes its map outside.
 */
final class Renewal {
    enum State { ACTIVE, RELEASING, ENDED, LOST }

    final LockProtocol protocol;
    final long owner;
    // guarded by this:
    private State state = State.ACTIVE;
    /** Releases sent and not yet answered; rounds skip the renewal while there are any. */
    private int releasing;
    private long endNanos;
    /**
     * The end that the watchdog's own lease set (the first hold, renewals, extensions): what is
     * left of {@link #endNanos} once a hold is released, since a fixed-lease re-entry's later end
     * may have gone with it (a read hold's lease is its own).
     */
    private long renewedEndNanos;
    /** When Redis last confirmed an acquisition of the owner, on the engine's clock: see {@link #acquiredBefore}. */
    private long acquiredNanos;
    /** The send time of the request that set {@link #endNanos}. */
    private long endSentNanos;
    /** The pending check for silence, and when it is due; null when none. */
    private @Nullable Timeout silenceCheck;
    private long silenceCheckDue;

    Renewal(LockProtocol protocol, long owner, long sentNanos, long leaseMillis) {
        this.protocol = protocol;
        this.owner = owner;
        this.endSentNanos = sentNanos;
        this.endNanos = LeaseClock.endOf(sentNanos, leaseMillis);
        this.renewedEndNanos = endNanos;
        this.acquiredNanos = sentNanos;
    }

    /** Redis confirmed an acquisition of the owner (a first hold or a re-entry) at {@code nowNanos}. */
    synchronized void acquiredAt(long nowNanos) {
        if (nowNanos - acquiredNanos > 0) {
            acquiredNanos = nowNanos;
        }
    }

    /**
     * Whether every acquisition it renews was confirmed before {@code nanos}: a force unlock sent
     * then ended them all. One confirmed later may have run after the force unlock: its renewal
     * tells.
     */
    synchronized boolean acquiredBefore(long nanos) {
        return acquiredNanos - nanos < 0;
    }

    synchronized State state() {
        return state;
    }

    /**
     * A re-entry sent at {@code sentNanos} set the TTL to at least {@code leaseMillis}: the scripts
     * never shorten a held lock's TTL, so the later of the two ends stands.
     *
     * @return whether the end came sooner (the check for silence is then due sooner): never
     */
    synchronized boolean ttlSet(long sentNanos, long leaseMillis) {
        long end = LeaseClock.endOf(sentNanos, leaseMillis);
        if (end - endNanos > 0) {
            endNanos = end;
        }
        if (sentNanos - endSentNanos > 0) {
            endSentNanos = sentNanos;
        }
        return false;
    }

    /** A renewal or extension sent at {@code sentNanos} set the TTL to at least {@code leaseMillis} (never shorter). */
    synchronized void ttlExtended(long sentNanos, long leaseMillis) {
        ttlSet(sentNanos, leaseMillis);
        long end = LeaseClock.endOf(sentNanos, leaseMillis);
        if (end - renewedEndNanos > 0) {
            renewedEndNanos = end;
        }
    }

    /** Nanoseconds from {@code nowNanos} to the last confirmed end; 0 or less once it passed. */
    synchronized long leftNanos(long nowNanos) {
        return endNanos - nowNanos;
    }

    /**
     * Keeps {@code check}, due at {@code dueNanos}, as the pending check for silence, so that an end
     * cancels it; of two pending checks the sooner stays, the other is cancelled, and so is
     * {@code check} when the renewal is already over.
     */
    synchronized void silenceCheck(Timeout check, long dueNanos) {
        boolean pending = silenceCheck != null && !silenceCheck.isExpired() && !silenceCheck.isCancelled();
        if (state == State.ENDED || state == State.LOST || pending && silenceCheckDue - dueNanos <= 0) {
            check.cancel();
            return;
        }
        if (pending) {
            castToNonNull(silenceCheck).cancel();
        }
        silenceCheck = check;
        silenceCheckDue = dueNanos;
    }

    /**
     * A release left holds (or may have, its reply lost): the confirmed end falls back to what the
     * watchdog's lease set, as the hold released may have taken a later end with it.
     *
     * @return whether the end came sooner (the check for silence is then due sooner)
     */
    synchronized boolean releasedOne() {
        if (renewedEndNanos - endNanos < 0) {
            endNanos = renewedEndNanos;
            return true;
        }
        return false;
    }

    /** True when the renewal was running (and now pauses for the release). */
    synchronized boolean beginRelease() {
        switch (state) {
            case ACTIVE, RELEASING -> {
                releasing++;
                state = State.RELEASING;
                return true;
            }
            case ENDED, LOST -> {
                return false;
            }
            default -> throw new IllegalStateException("unknown renewal state " + state);
        }
    }

    /** True when the renewal ended with this release. */
    synchronized boolean endRelease(boolean stillHeld) {
        switch (state) {
            case RELEASING -> {
                releasing--;
                if (!stillHeld) {
                    over(State.ENDED);
                    return true;
                }
                if (releasing == 0) {
                    state = State.ACTIVE;
                }
                return false;
            }
            case ACTIVE -> {
                if (!stillHeld) {
                    over(State.ENDED);
                    return true;
                }
                return false;
            }
            case ENDED, LOST -> {
                return true;
            }
            default -> throw new IllegalStateException("unknown renewal state " + state);
        }
    }

    synchronized void end() {
        if (state != State.LOST) {
            over(State.ENDED);
        }
    }

    /** True when an active renewal is now lost (Redis said so); false when it was released or ended meanwhile. */
    synchronized boolean markLost() {
        if (state != State.ACTIVE) {
            return false;
        }
        over(State.LOST);
        return true;
    }

    /**
     * True when a running renewal (active, or paused for a release whose reply has not come) is
     * now lost because its last confirmed end passed by {@code nowNanos} with no renewal answered;
     * false when it has time left, or is over.
     */
    synchronized boolean markLostOnSilence(long nowNanos) {
        if (state == State.ENDED || state == State.LOST || endNanos - nowNanos > 0) {
            return false;
        }
        over(State.LOST);
        return true;
    }

    private void over(State last) {
        state = last;
        if (silenceCheck != null) {
            silenceCheck.cancel();
            silenceCheck = null;
        }
    }
}
