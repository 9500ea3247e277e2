package dev.padlock.tests.model;

import dev.padlock.tests.support.Clients;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The bookkeeping of {@link LockModel}: who believes it holds what, since when and until when at
 * the latest, and the definite-holding intervals ("segments") whose overlap across owners is a
 * "two holders" violation. Confined to the test thread, except the fields marked volatile.
 *
 * <h2>How conservative the model is</h2>
 * A segment is a time interval during which an owner certainly holds a name, by the contract's
 * rules: it starts when the owner's acquisition future completed with success (Redis confirmed
 * before that) and ends at the call that ends the holding (its final unlock, a forceUnlock, a
 * DEL), or a little before the earliest moment its fixed lease can run out. Any time in doubt the
 * owner is "maybe holding" and has no segment: two segments of different owners that overlap are
 * therefore a real violation.
 */
final class ModelBook {
    private ModelBook() {
    }

    static final long NEVER = Long.MAX_VALUE;

    static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    static long nanos(long millis) {
        return TimeUnit.MILLISECONDS.toNanos(millis);
    }

    /**
     * Which lock object of a name is used. The exclusive kinds (plain, spin, fenced, fair) share
     * the hash format {@code name -> {clientId:threadId: holdCount}} and act on the same names;
     * the two sides of the read-write lock act on names of their own (mode, readers, writer).
     */
    enum Kind {
        LOCK, SPIN, FENCED, FAIR, READ, WRITE;

        boolean readWrite() {
            return this == READ || this == WRITE;
        }

        Side side() {
            return this == READ ? Side.READ : this == WRITE ? Side.WRITE : Side.EXCLUSIVE;
        }
    }

    /** What an owner holds of a name: an exclusive lock, or one side of a read-write lock. */
    enum Side {
        EXCLUSIVE, READ, WRITE;

        /** Whether holdings of two different owners on these two sides exclude each other. */
        boolean excludes(Side other) {
            return this != READ || other != READ;
        }
    }

    /** How an acquisition waits. */
    enum Mode {
        /** {@code lock}/{@code lockAsync}: no bound. */
        LOCK,
        /** {@code tryLock()}: one attempt. */
        TRY_ONCE,
        /** {@code tryLock(wait)} with a short wait. */
        TRY_WAIT,
        /** {@code tryLock(wait)} with a wait long enough to count for liveness. */
        TRY_LONG
    }

    /** What Redis and the model say about one owner's holding of one name, now. */
    enum State {
        NONE, DEFINITE, MAYBE
    }

    /**
     * An owner: an id of one client, driven asynchronously, or a thread of its own (blocking API).
     * Clients 0 and 1 are Padlock's; client {@link #REDISSON} is a Redisson client (asynchronous
     * owners only, with explicit thread ids).
     */
    static final class Owner {
        static final int REDISSON = 2;
        final int index;
        final int client;
        final long id;
        /** Single thread for the blocking API; null for asynchronous owners. */
        final java.util.concurrent.ExecutorService thread;
        final Thread worker;
        /**
         * The acquisitions in flight, oldest first: a threaded owner with one is busy (as a blocked
         * thread is); an asynchronous owner may have a second wait on the same name.
         */
        final List<Pending> pendings = new ArrayList<>();

        Owner(int index, int client, long id, java.util.concurrent.ExecutorService thread, Thread worker) {
            this.index = index;
            this.client = client;
            this.id = id;
            this.thread = thread;
            this.worker = worker;
        }

        boolean threaded() {
            return thread != null;
        }

        boolean redisson() {
            return client == REDISSON;
        }

        /** Whether the owner has nothing in flight. */
        boolean idle() {
            return pendings.isEmpty();
        }

        /** Whether the owner may act (unlock, re-enter) now: an asynchronous one always, a thread when not blocked. */
        boolean free() {
            return !threaded() || pendings.isEmpty();
        }

        /** How many acquisitions of {@code name} on {@code side} are in flight. */
        int pendingOn(String name, Side side) {
            int n = 0;
            for (Pending p : pendings) {
                if (p.name.equals(name) && p.side == side) {
                    n++;
                }
            }
            return n;
        }

        @Override
        public String toString() {
            return "c" + client + (redisson() ? "R" : threaded() ? "T" : "o") + index;
        }
    }

    /** One acquisition in flight. */
    static final class Pending {
        final Owner owner;
        final String name;
        final Kind kind;
        final Side side;
        final Mode mode;
        /** The lease asked for, or -1 for a watchdog lease. */
        final long leaseMillis;
        /** The wait asked for, or -1 for no bound. */
        final long waitMillis;
        final long calledAt;
        final boolean reentrant;
        /** A second wait of an owner whose first wait on the name was still in flight when it began. */
        boolean second;
        /** Set by whichever comes first: the blocking call's task starting, or giving up before it did. */
        final java.util.concurrent.atomic.AtomicBoolean started = new java.util.concurrent.atomic.AtomicBoolean();
        /** What is cancelled to give up: the engine's own future, or the blocking call's task. */
        Future<?> cancelHandle;
        CompletableFuture<Boolean> result;
        volatile long doneAt;
        /**
         * Set last by the completion callback, after the pending joined the completed queue: a step that
         * takes a completion for itself (and removes it from that queue) waits for this, not for
         * {@link #doneAt}, or the callback could queue it again behind the step's back.
         */
        volatile boolean queued;

        Pending(Owner owner, String name, Kind kind, Mode mode, long leaseMillis, long waitMillis, long calledAt,
                boolean reentrant) {
            this.owner = owner;
            this.name = name;
            this.kind = kind;
            this.side = kind.side();
            this.mode = mode;
            this.leaseMillis = leaseMillis;
            this.waitMillis = waitMillis;
            this.calledAt = calledAt;
            this.reentrant = reentrant;
        }

        boolean watchdog() {
            return leaseMillis <= 0;
        }

        /** Set when the model cancels or interrupts it: it no longer waits, whenever its future says so. */
        volatile boolean givenUp;

        /** Whether, at {@code now}, this acquisition may still wait for longer than {@code millis}. */
        boolean waitsLongerThan(long now, long millis) {
            return !givenUp && (waitMillis < 0 || calledAt + nanos(waitMillis) - now > nanos(millis));
        }

        @Override
        public String toString() {
            return owner + " " + mode + "(" + kind + " " + name + ", lease "
                    + (watchdog() ? "watchdog" : leaseMillis + "ms") + (waitMillis >= 0 && mode != Mode.TRY_ONCE
                    ? ", wait " + waitMillis + "ms" : "") + ")" + (reentrant ? " re-entrant" : "")
                    + (second ? " second wait" : "");
        }
    }

    /** An interval in which an owner certainly held a name. */
    static final class Segment {
        final Owner owner;
        final String name;
        final Side side;
        final long start;
        long end;
        final String how;

        Segment(Owner owner, String name, Side side, long start, long end, String how) {
            this.owner = owner;
            this.name = name;
            this.side = side;
            this.start = start;
            this.end = end;
            this.how = how;
        }

        boolean overlaps(Segment other) {
            return start < other.end && other.start < end;
        }

        /** Two owners certainly holding at once what excludes the other: a violation. */
        boolean conflicts(Segment other) {
            return other.owner != owner && side.excludes(other.side) && overlaps(other);
        }
    }

    /** An owner's holding of a name, as the model believes it. */
    static final class Hold {
        final Owner owner;
        final String name;
        final Side side;
        int count;
        /** Whether any of its acquisitions has a watchdog lease (then the watchdog sets the TTL). */
        boolean watchdog;
        boolean uncertain;
        long grantedAt;
        long definiteUntil;
        long possiblyUntil;
        /**
         * Exclusive and write holds with fixed leases: the earliest expiry Redis may have (what the
         * last acquisition's answer promised: its lease counted from before it landed). Readers:
         * unused, see {@link #readEnds}.
         */
        long leaseEnd = NEVER;
        /**
         * Readers with fixed leases: per hold (each has a lease key of its own), the earliest expiry
         * of its key, in the order the holds were taken (a release drops the last one).
         */
        final List<Long> readEnds = new ArrayList<>();
        /** Whether two acquisitions landed in an order the model does not know (two waits). */
        boolean unordered;
        /** A violation on it was noted and skipped (padlock.model.skip): not checked again. */
        boolean flagged;
        /** The kinds of lock object its acquisitions went through. */
        final java.util.EnumSet<Kind> kinds = java.util.EnumSet.noneOf(Kind.class);
        Segment open;

        Hold(Owner owner, String name, Side side) {
            this.owner = owner;
            this.name = name;
            this.side = side;
        }

        /**
         * Which check a wrong count on this hold falls under: {@code counts-mixed} when it was taken
         * through both the fair lock (which acquires on Redis only) and a kind that goes through the
         * client's local view of the name (plain, spin, fenced), {@code counts-twowaits} when two
         * acquisitions in flight at once both added to it, else {@code counts}.
         */
        String countCheck() {
            boolean local = kinds.contains(Kind.LOCK) || kinds.contains(Kind.SPIN) || kinds.contains(Kind.FENCED);
            if (local && kinds.contains(Kind.FAIR) && !owner.redisson()) {
                return "counts-mixed";
            }
            return unordered ? "counts-twowaits" : "counts";
        }

        /** Drops the lease record of the hold a release drops: the last one taken, or the longest when unknown. */
        void dropOneRead() {
            if (readEnds.isEmpty()) {
                return;
            }
            if (unordered) {
                readEnds.remove(readEnds.indexOf(java.util.Collections.max(readEnds)));
            } else {
                readEnds.remove(readEnds.size() - 1);
            }
        }

        State state(long now) {
            if (now >= possiblyUntil) {
                return State.NONE;
            }
            if (uncertain || now >= definiteUntil) {
                return State.MAYBE;
            }
            return State.DEFINITE;
        }

        /** Stops believing: the open segment ends at {@code at} at the latest. */
        void end(long at) {
            if (open != null) {
                open.end = Math.min(open.end, at);
                open = null;
            }
        }

        /** From now on only "maybe": no segment beyond what was certain until {@code at}. */
        void doubt(long at, long possiblyUntil) {
            end(at);
            uncertain = true;
            this.possiblyUntil = possiblyUntil;
        }
    }

    /** A forceUnlock or DEL of a name: every belief ends at its call. */
    static final class Force {
        final String name;
        final long calledAt;
        long doneAt;
        /** Owners that certainly held the name from the call until the force ran. */
        final Set<Owner> heldBy = new HashSet<>();

        Force(String name, long calledAt) {
            this.name = name;
            this.calledAt = calledAt;
        }
    }

    /** A report of the watchdog that a lease it renewed was lost. */
    record LeaseLost(int client, String name, long threadId, long at) {
    }

    /** Per-name history. */
    static final class NameLog {
        final List<Segment> segments = new ArrayList<>();
        final List<Force> forces = new ArrayList<>();
        /** Per client: the latest end of a local holder's belief by another client's action or a DEL. */
        final Map<Integer, Long> externalLossAt = new HashMap<>();
        /** Per client: the latest moment a local holder's fixed lease could end. */
        final Map<Integer, Long> leaseEndAt = new HashMap<>();
        /** Per owner index: the latest moment it held this name's read lock (for a write refused as an upgrade). */
        final Map<Integer, Long> readHeldUntil = new HashMap<>();
    }
}
