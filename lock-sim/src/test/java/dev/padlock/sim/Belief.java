package dev.padlock.sim;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.TimeUnit;

/**
 * What one owner believes of one lock: its holds, each with when Redis ran the call that told it
 * and the lease it was promised, and the lock's expiry when its field was last seen with the
 * believed count. The promise under test: while an owner believes it holds, Redis has its field
 * with that count, or the owner is told it lost the lock by the time the TTL it had runs out.
 */
final class Belief {
    /**
     * One hold: when Redis ran the call that told the owner (-1: not known) and its lease (-1:
     * watchdog); {@code reentry} when the owner had another hold of the lock, or another acquisition
     * of it under way, as it asked for this one.
     */
    record Hold(long ranAt, long leaseMillis, long toldAt, long askedAt, boolean reentry, boolean lostReply) {
        boolean watchdog() {
            return leaseMillis < 0;
        }

        /** The end of its lease; when its Redis time is not known, counted from when it was asked for (the least it can be). */
        long promisedUntil() {
            long from = ranAt >= 0 ? ranAt : askedAt;
            return watchdog() ? Long.MAX_VALUE : from + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
        }
    }

    final SimClient client;
    final long owner;
    final Kind kind;
    final String field;
    private final Deque<Hold> holds = new ArrayDeque<>();
    /** The lock's expiry (virtual nanos) when the field was last seen with the believed count. */
    long lastSeenExpiry = Long.MAX_VALUE;
    /** For the kinds that re-arm: the end of the latest acquisition's lease, and whether its Redis time is known. */
    private long armedUntil;
    private boolean armedKnown;
    private Hold latest;
    /** An unlock of this owner is in flight: Redis may already count one hold less. */
    boolean releasing;
    /**
     * A known defect struck this owner's holds: the engine's view of them is off, so what follows
     * from it is that defect's, not a new one; cleared when the owner holds nothing again.
     */
    boolean tainted;
    /**
     * The owner was told it lost a component of this composite: it takes the lock as lost, yet
     * still unlocks each hold (as a finally block does), which lets the other components go; its
     * holds are not checked until it holds nothing.
     */
    boolean lost;
    /**
     * How many of its holds, the earliest, may be gone from Redis: their lease was over when a
     * later one was told. Only the others are certain.
     */
    int uncertain;
    /** A known defect struck this owner's holds of the lock once in the episode: a hold of it left on Redis may be that defect's. */
    boolean struck;
    /** Acquisitions of this owner in flight: one may have re-armed the lease already. */
    int acquiring;

    Belief(SimClient client, long owner, Kind kind) {
        this.client = client;
        this.owner = owner;
        this.kind = kind;
        this.field = kind.field(client.id, owner);
    }

    /** Whether its holds are left unchecked: a known defect struck them, or the owner was told it lost the lock. */
    boolean unchecked() {
        return tainted || lost;
    }

    int count() {
        return holds.size();
    }

    /**
     * Holds still within their lease at {@code now}: each read hold has a lease of its own, which
     * may end before the others' (an unlock then lets a live one go); every other kind's holds
     * share the lock's.
     */
    int liveCount(long now) {
        return kind == Kind.READ ? (int) holds.stream().filter(hold -> hold.promisedUntil() > now).count() : certain();
    }

    /** Holds that Redis must have: all but the {@link #uncertain} ones. */
    int certain() {
        return Math.max(0, holds.size() - uncertain);
    }

    void told(Hold hold) {
        if (holds.isEmpty()) {
            lastSeenExpiry = Long.MAX_VALUE;
            armedUntil = 0;
            armedKnown = true;
        }
        // a composite's components ran at times not known: of two acquisitions that overlapped,
        // either may have re-armed them last
        boolean overlaps = kind.keys().size() > 1 && !holds.isEmpty() && latest.toldAt() > hold.askedAt();
        holds.addLast(hold);
        latest = hold;
        long start = hold.ranAt() >= 0 ? hold.ranAt() : hold.askedAt();
        long lease = TimeUnit.MILLISECONDS.toNanos(Math.max(0, hold.leaseMillis()));
        // how each kind's acquisition sets the lock's lease (docs/user-guide/api.md, re-entry)
        armedUntil = kind == Kind.WRITE ? Math.max(armedUntil, start) + lease : start + lease;
        armedKnown &= hold.ranAt() >= 0 && !overlaps;
    }

    void released() {
        holds.pollLast();
        uncertain = Math.min(uncertain, holds.size());
        tainted &= !holds.isEmpty();
        lost &= !holds.isEmpty();
        // an inner release re-arms by its own rule (never shorter): what it must reach is not known
        armedKnown = false;
    }

    void forget() {
        holds.clear();
        uncertain = 0;
        tainted = false;
        lost = false;
    }

    /** Keeps the first {@code count} holds: what Redis counts. */
    void keep(long count) {
        while (holds.size() > count) {
            holds.pollLast();
        }
        uncertain = 0;
        armedKnown = false;
    }

    Hold last() {
        return holds.peekLast();
    }

    /**
     * When the owner's holds are over, as it knows. A plain, spin, fenced or fair re-entry re-arms
     * the lease to its own (as Redisson's): the latest fixed-lease acquisition still held decides,
     * watchdog holds or not. A write re-entry adds its lease to what remains; each read hold has a
     * lease of its own. Otherwise a watchdog hold lasts until it is released.
     */
    long promisedUntil() {
        if (kind.rearms() && rearmedByFixedLease()) {
            return armedUntil;
        }
        if (watchdog()) {
            return Long.MAX_VALUE;
        }
        if (kind == Kind.READ) {
            long until = 0;
            for (Hold hold : holds) {
                until = Math.max(until, hold.promisedUntil());
            }
            return until;
        }
        return armedUntil;
    }

    /** The least end that Redis's TTL must reach now; 0 when nothing is required (a watchdog hold, a time not known). */
    long requiredExpiry() {
        if (kind.rearms()) {
            return rearmedByFixedLease() && armedKnown ? armedUntil : 0;
        }
        if (watchdog()) {
            return 0;
        }
        if (kind == Kind.READ) {
            long until = 0;
            for (Hold hold : holds) {
                if (hold.ranAt() >= 0) {
                    until = Math.max(until, hold.promisedUntil());
                }
            }
            return until;
        }
        return armedKnown ? armedUntil : 0;
    }

    /** Whether the latest acquisition, still held, has a fixed lease: it re-armed the lock's lease to its own. */
    private boolean rearmedByFixedLease() {
        Hold last = holds.peekLast();
        return last != null && last == latest && !last.watchdog();
    }

    /** When the first hold began on Redis (when that is not known: when it was asked for, the earliest it can have). */
    long since() {
        Hold first = holds.peekFirst();
        return first == null ? Long.MAX_VALUE : first.ranAt() >= 0 ? first.ranAt() : first.askedAt();
    }

    boolean watchdog() {
        return holds.stream().anyMatch(Hold::watchdog);
    }

    @Override
    public String toString() {
        return client.id + "/" + owner + " " + kind + " x" + holds.size() + " " + holds;
    }
}
