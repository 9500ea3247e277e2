package dev.padlock.internal.queue;

import static dev.padlock.internal.base.Nulls.castToNonNull;

import dev.padlock.internal.acquire.HeldBefore;
import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.lease.LeaseMillis;
import dev.padlock.internal.protocol.LockProtocol;
import dev.padlock.internal.renewal.Watchdog;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The owner of this client that Redis last confirmed as holding one {@link LocalQueue}'s lock, if
 * any: who, through which kind, when (in {@link LocalQueues#confirmations()}' sequence), and the
 * {@link HolderLeaseWatch} on its fixed lease. A reply to a call sent before the confirmation (a
 * release, a hand-off, a force unlock whose answer came late, after a {@code NOSCRIPT} retry, say)
 * says nothing about this holder and does not make it forgotten. It also keeps since when this
 * client holds the lock (its holders one after the other, through local hand-offs), until that is
 * noted on Redis ({@link SinceNotes}).
 *
 * <p>Not thread-safe: guarded by its queue's monitor.
 */
final class ConfirmedHolder {
    /** Makes the watch of a fixed lease: at the first one, since most holds are renewed by the watchdog. */
    private final Supplier<HolderLeaseWatch> leaseWatches;
    /** Null until the first fixed lease. */
    private @Nullable HolderLeaseWatch leaseWatch;
    private final EngineClock clock;
    private long owner = LocalQueue.NONE;
    /**
     * The holder's holds as Redis confirmed them (acquisitions, less the releases that said holds
     * remain): what names a re-entry whose reply was lost (see {@link #heldBesides}); never a grant.
     */
    private int holds;
    private long confirmedAt;
    /** The kind the holder acquired through, for its renewal's key. */
    private @Nullable LockProtocol protocol;
    /** {@link EngineClock#nanoTime()} at the reply that made the holder hold. */
    private long heldSince;
    /** Whether the holder's since is noted on Redis, or is being noted, or needs no note. */
    private boolean sinceNoted = true;
    /**
     * Whether a force unlock sent after the holder was confirmed went unanswered: it may have
     * deleted the lock, so queued owners ask Redis instead of waiting for the holder (see {@link #doubt}).
     */
    private boolean inDoubt;

    ConfirmedHolder(Supplier<HolderLeaseWatch> leaseWatches, EngineClock clock) {
        this.leaseWatches = leaseWatches;
        this.clock = clock;
    }

    /** The holder, or {@link LocalQueue#NONE}. */
    long owner() {
        return owner;
    }

    /** The kind the holder acquired through; null without a holder. */
    @Nullable LockProtocol protocol() {
        return protocol;
    }

    boolean is(long candidate) {
        return owner == candidate;
    }

    boolean none() {
        return owner == LocalQueue.NONE;
    }

    /** The holder's holds as Redis confirmed them; 0 without a holder. */
    int holds() {
        return holds;
    }

    /**
     * How many holds {@code candidate} has besides an acquisition or release of it whose reply was
     * lost, with no release of the lock in flight (see {@link HeldBefore}): the holder's confirmed
     * holds, 0 when it is not the holder (a lost lease, a force unlock); {@link HeldBefore#UNKNOWN}
     * while {@code othersMayMove} the count Redis keeps (another acquisition of the owner in flight,
     * which may be in doubt too, or holds through a fair lock object, which Redis counts and the
     * queue does not).
     */
    int heldBesides(long candidate, boolean othersMayMove) {
        if (othersMayMove) {
            return HeldBefore.UNKNOWN;
        }
        return owner == candidate ? holds : 0;
    }

    /**
     * A release of the holder said holds remain: one fewer. At 0, what remains on Redis is no hold
     * anyone was told of (an acquisition given up in doubt that landed, to be given back).
     */
    void releasedOne() {
        if (owner != LocalQueue.NONE) {
            holds = Math.max(0, holds - 1);
        }
    }

    /**
     * Redis confirmed that {@code ticket}'s owner holds, as the {@code at}-th confirmation, with the
     * lease the ticket asked for: a fixed lease is watched, a watchdog lease is renewed. Returns
     * whether nobody held before.
     */
    boolean confirm(Ticket ticket, long at) {
        boolean first = owner == LocalQueue.NONE;
        boolean reentry = owner == ticket.owner;
        if (owner == LocalQueue.NONE || inDoubt && !reentry) {
            // a new run of holds by this client; a local hand-off goes on with the run's since
            heldSince = clock.nanoTime();
            sinceNoted = false;
        }
        owner = ticket.owner;
        holds = reentry ? holds + 1 : 1;
        confirmedAt = at;
        protocol = ticket.protocol;
        inDoubt = false;
        if (LeaseMillis.isWatchdog(ticket.leaseMillis)) {
            noFixedLease();
        } else if (reentry) {
            watch().fixedLeaseAtLeast(ticket.leaseMillis); // a re-entry never shortens the TTL
        } else {
            watch().fixedLease(ticket.leaseMillis);
        }
        return first;
    }

    /**
     * Redis put {@code heldFor}'s field in by a grant it no longer waits for, as the {@code at}-th
     * confirmation; its lease is not watched (it is released at once). Unless another owner is the
     * holder: then the grant is late (Redis puts in one holder at a time), the holder stays, and
     * this returns false.
     */
    boolean holdForPassOn(LockProtocol kind, long heldFor, long at) {
        if (owner != LocalQueue.NONE) {
            return false;
        }
        sinceNoted = true; // a grant writes the since of the owner it names
        owner = heldFor;
        holds = 1;
        confirmedAt = at;
        protocol = kind;
        inDoubt = false;
        noFixedLease();
        return true;
    }

    private HolderLeaseWatch watch() {
        if (leaseWatch == null) {
            leaseWatch = leaseWatches.get();
        }
        return leaseWatch;
    }

    private void noFixedLease() {
        if (leaseWatch != null) {
            leaseWatch.noFixedLease();
        }
    }

    /**
     * Redis raised the holder's lease to at least {@code leaseMillis}, fixed, just now, through a kind
     * that does not go through the local view (a fair re-entry of the shared hash, which never
     * shortens it): the later end is watched.
     */
    void leaseSetElsewhere(long leaseMillis) {
        if (owner != LocalQueue.NONE) {
            watch().fixedLeaseAtLeast(leaseMillis);
        }
    }

    /**
     * The holder whose since is due to be noted on Redis, held for at least {@code minNanos} and not
     * noted yet, as a note to send; marks it noted. {@code null} when there is none.
     */
    @Nullable SinceNote takeSinceDue(long minNanos) {
        long heldFor = clock.nanoTime() - heldSince;
        if (sinceNoted || owner == LocalQueue.NONE || heldFor < minNanos) {
            return null;
        }
        sinceNoted = true;
        return new SinceNote(castToNonNull(protocol), owner, heldFor); // set with the owner
    }

    /** Whether a holder's since is still to be noted. */
    boolean sinceDue() {
        return !sinceNoted && owner != LocalQueue.NONE;
    }

    /** The note for {@code noted} did not reach Redis: the next round tries again, if it still holds. */
    void sinceNotNoted(long noted) {
        if (owner == noted) {
            sinceNoted = false;
        }
    }

    /** A holder's since to note on Redis: who, through which kind, held for how long (ns). */
    record SinceNote(LockProtocol protocol, long owner, long heldForNanos) {
    }

    /**
     * Redis says the holder holds nothing: forgets it and stops watching its lease (a pending check
     * finds nothing, or serves the next holder's lease).
     */
    void forget() {
        sinceNoted = true;
        inDoubt = false;
        owner = LocalQueue.NONE;
        holds = 0;
        protocol = null;
        if (leaseWatch != null) {
            leaseWatch.noFixedLease();
        }
    }

    /**
     * A force unlock sent at the {@code sentAt}-th confirmation got no answer: when it was sent after
     * the holder was confirmed, the holder may be gone, and is kept only as a guess (its re-entry
     * must not queue behind itself, nor go out as a claim) until Redis confirms an owner.
     */
    void doubt(long sentAt) {
        if (owner != LocalQueue.NONE && confirmedAt <= sentAt) {
            inDoubt = true;
        }
    }

    /** Whether queued owners ask Redis: nobody holds, or the holder may be gone ({@link #doubt}). */
    boolean noneOrInDoubt() {
        return owner == LocalQueue.NONE || inDoubt;
    }

    /** Whether Redis confirmed the holder (if any) no later than the {@code sentAt}-th confirmation. */
    boolean confirmedBy(long sentAt) {
        return confirmedAt <= sentAt;
    }

    /**
     * A reply to a call sent at {@code sentAt} says {@code released} holds nothing: forgets it when it
     * is the holder and was confirmed before the call was sent.
     */
    void forgetIfConfirmedBefore(long released, long sentAt) {
        if (owner == released && confirmedAt <= sentAt) {
            forget();
        }
    }

    /**
     * The lease check fired: whether the holder's fixed lease ran out, so the key has expired,
     * unless the watchdog renews the holder (a fixed-lease re-entry of a renewed hold: its release
     * or lost lease will say).
     */
    boolean leaseRanOut(Watchdog watchdog) {
        return leaseWatch != null && leaseWatch.over() && owner != LocalQueue.NONE && !watchdog.isRenewing(castToNonNull(protocol), owner);
    }

    /** Cancels the pending lease check: the queue is closing or retiring. */
    void cancelLeaseCheck() {
        if (leaseWatch != null) {
            leaseWatch.cancel();
        }
    }
}
