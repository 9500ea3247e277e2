package dev.padlock.internal.queue;

import dev.padlock.internal.protocol.LockProtocol;
import dev.padlock.internal.renewal.Watchdog;

/**
 * The owner of this client that Redis last confirmed as holding one {@link LocalQueue}'s lock, if
 * any: who, through which kind, when (in {@link LocalQueues#confirmations()}' sequence), and the
 * {@link HolderLeaseWatch} on its fixed lease. A reply to a call sent before the confirmation (a
 * release, a hand-off, a force unlock whose answer came late, after a {@code NOSCRIPT} retry, say)
 * says nothing about this holder and does not make it forgotten.
 *
 * <p>Not thread-safe: guarded by its queue's monitor.
 */
final class ConfirmedHolder {
    private final HolderLeaseWatch leaseWatch;
    private long owner = LocalQueue.NONE;
    private long confirmedAt;
    /** The kind the holder acquired through, for its renewal's key. */
    private LockProtocol protocol;

    ConfirmedHolder(HolderLeaseWatch leaseWatch) {
        this.leaseWatch = leaseWatch;
    }

    /** The holder, or {@link LocalQueue#NONE}. */
    long owner() {
        return owner;
    }

    boolean is(long candidate) {
        return owner == candidate;
    }

    boolean none() {
        return owner == LocalQueue.NONE;
    }

    /**
     * Redis confirmed that {@code ticket}'s owner holds, as the {@code at}-th confirmation, with the
     * lease the ticket asked for: a fixed lease is watched, a watchdog lease is renewed.
     */
    void confirm(Ticket ticket, long at) {
        owner = ticket.owner;
        confirmedAt = at;
        protocol = ticket.protocol;
        if (ticket.watchdogLease) {
            leaseWatch.noFixedLease();
        } else {
            leaseWatch.fixedLease(ticket.leaseMillis);
        }
    }

    /**
     * Redis put {@code heldFor}'s field in by a grant it no longer waits for, as the {@code at}-th
     * confirmation; its lease is not watched (it is released at once).
     */
    void holdForPassOn(LockProtocol kind, long heldFor, long at) {
        owner = heldFor;
        confirmedAt = at;
        protocol = kind;
        leaseWatch.noFixedLease();
    }

    /**
     * Redis set the holder's lease to {@code leaseMillis}, fixed, just now, through a kind that does
     * not go through the local view (a fair re-entry re-arms the shared hash to its own lease): a
     * shorter lease is watched from now.
     */
    void leaseSetElsewhere(long leaseMillis) {
        if (owner != LocalQueue.NONE) {
            leaseWatch.fixedLease(leaseMillis);
        }
    }

    /** Redis says the holder holds nothing: forgets it and stops watching its lease. */
    void forget() {
        owner = LocalQueue.NONE;
        protocol = null;
        leaseWatch.clear();
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
        return leaseWatch.over() && owner != LocalQueue.NONE && !watchdog.isRenewing(protocol, owner);
    }

    /** Cancels the pending lease check: the queue is closing or retiring. */
    void cancelLeaseCheck() {
        leaseWatch.cancel();
    }
}
