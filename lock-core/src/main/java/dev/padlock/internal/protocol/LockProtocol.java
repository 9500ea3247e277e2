package dev.padlock.internal.protocol;

import dev.padlock.internal.script.LuaScript;
import dev.padlock.internal.script.ScriptRunner;
import io.lettuce.core.ScriptOutputType;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * How one kind of lock acquires, releases and renews on Redis: what every kind can do. The wait
 * loop, the watchdog and the facade are shared by every kind; only this differs. What only some
 * kinds can do is a capability of its own, which a kind exposes by implementing it and its callers
 * get typed from {@link #claiming()}, {@link #granting()} and {@link #localHandOff()}: claims that
 * may be sent again ({@link Claiming}), a line on Redis that releases grant from
 * ({@link Granting}), and hand-offs between owners of one client ({@link LocalHandOff}).
 */
public interface LockProtocol {

    /** The lock's name, which is also its main key. */
    String name();

    /**
     * What the watchdog and the local queues know this lock by: the name, plus the side for the
     * two locks of a read-write lock, which share one name.
     */
    default String localKey() {
        return name();
    }

    /** The hash field of owner {@code threadId}: {@code <clientId>:<threadId>}, or a kind's variant. */
    String ownerField(long threadId);

    /** The channel owner {@code threadId} waits on for a wake-up. */
    String unlockChannel(long threadId);

    /**
     * This kind's claims, or null when its first holds are plain attempts. A kind exposes it by
     * implementing {@link Claiming}.
     */
    default @Nullable Claiming claiming() {
        return this instanceof Claiming claims ? claims : null;
    }

    /**
     * This kind's line on Redis that a release grants from, or null when it has none (or has it
     * off, see {@link ExclusiveLockProtocol}). A kind exposes it by implementing {@link Granting}.
     */
    default @Nullable Granting granting() {
        return this instanceof Granting grants ? grants : null;
    }

    /**
     * This kind's part in its client's local view of the name ({@code LocalQueue}), or null when
     * it acquires and releases on Redis alone. A kind exposes it by implementing {@link LocalHandOff}.
     */
    default @Nullable LocalHandOff localHandOff() {
        return this instanceof LocalHandOff handsOff ? handsOff : null;
    }

    /**
     * One acquisition attempt for {@code threadId}, re-entering when it already holds the lock.
     *
     * @param willWait whether a failed attempt will be followed by a wait (a fair lock then
     *     queues the owner; a one-shot attempt must not)
     */
    CompletableFuture<Attempt> tryAcquire(long leaseMillis, long threadId, boolean willWait);

    /**
     * What Redis says of {@code threadId} now: acquired (with its token, for kinds that have one)
     * when its field is in the lock, else not acquired with an unknown TTL ({@code -2}). Asked
     * after an attempt whose reply was lost.
     */
    CompletableFuture<Attempt> confirm(long threadId);

    /**
     * {@link #confirm} for a re-entry whose reply was lost, sent while the owner held
     * {@code heldBefore} holds: acquired only when Redis counts more than that, so the owner's
     * other holds do not confirm it.
     */
    CompletableFuture<Attempt> confirmReentry(long threadId, int heldBefore);

    /**
     * An acquisition of {@code threadId} that attempted with {@code willWait} stopped without the
     * lock: forget any place it holds in a queue on Redis. Kinds without one complete at once.
     */
    default CompletableFuture<Void> leaveQueue(long threadId) {
        return CompletableFuture.completedFuture(null);
    }

    /** The longest a waiter may park between attempts, whatever the holder's lease. */
    default long maxParkMillis() {
        return Long.MAX_VALUE;
    }

    /**
     * Drops one hold of {@code threadId}.
     *
     * @param rearmLeaseMillis the lease to set when holds remain; {@code 0} keeps the current one
     */
    CompletableFuture<Release> release(long threadId, long rearmLeaseMillis);

    /** Deletes the lock whoever holds it; whether it was held. */
    CompletableFuture<Boolean> forceRelease();

    /** Whether anyone holds this lock now. */
    CompletableFuture<Boolean> isLocked();

    /** The script that renews watchdog leases of this kind, many locks a call. */
    default LuaScript renewScript() {
        return LuaScript.LOCK_RENEW;
    }

    /**
     * The keys one lock adds to a {@link #renewScript()} call for owner {@code threadId}; its
     * owner field goes in ARGV.
     */
    default String[] renewKeys(long threadId) {
        return new String[] {name()};
    }

    /**
     * Renews owner {@code threadId}'s lease at once, outside the watchdog's rounds, with
     * {@link #renewScript()}: sets it to {@code leaseMillis} when the owner holds (never shortening
     * a longer one) and completes with whether it held. For an extension a caller asks for, and
     * for a hold whose confirming reply came too late to be taken on its own. Sent in order with
     * the connection's other calls, so a release sent after it lands after it.
     */
    default CompletableFuture<Boolean> renew(ScriptRunner scripts, long threadId, long leaseMillis) {
        CompletableFuture<List<Object>> renewed = scripts.runInOrder(renewScript(), ScriptOutputType.MULTI,
                renewKeys(threadId), Long.toString(leaseMillis), ownerField(threadId));
        return renewed.thenApply(reply -> Long.valueOf(1L).equals(reply.get(0)));
    }

    /**
     * What an attempt found.
     *
     * @param refusal when not null, not acquired and never will be while the owner keeps what it
     *     holds (a reader asking for the write lock): why, for the exception of an unbounded wait
     */
    record Attempt(boolean acquired, long ttl, long token, @Nullable String refusal) {
        public static final long NO_TOKEN = Long.MIN_VALUE;
        /** Acquired, by a kind without tokens. */
        public static final Attempt ACQUIRED = new Attempt(true, 0, NO_TOKEN);

        Attempt(boolean acquired, long ttl, long token) {
            this(acquired, ttl, token, null);
        }

        /**
         * Not acquired, and waiting cannot help: a bounded wait answers {@code false} at once, an
         * unbounded one fails with {@link IllegalMonitorStateException}({@code reason}).
         */
        static Attempt refused(String reason) {
            return new Attempt(false, -1, NO_TOKEN, reason);
        }

        /**
         * Not acquired.
         *
         * @param ttl how long to wait at most before the next attempt: the holder's remaining
         *     lease in milliseconds, {@code -1} when it has none
         */
        public static Attempt notAcquired(long ttl) {
            return new Attempt(false, ttl, NO_TOKEN);
        }

        /** Reads the scripts' usual reply: nil when acquired, else the TTL. */
        static Attempt fromTtl(Long ttl) {
            return ttl == null ? ACQUIRED : notAcquired(ttl);
        }
    }

    /** What a release found. */
    enum ReleaseOutcome {
        /** The owner did not hold the lock; nothing changed. */
        NOT_HELD,
        /** One hold dropped; more remain. */
        STILL_HELD,
        /** The owner's last hold dropped (the lock is free unless other owners share it). */
        RELEASED;

        /** Reads {@code lock_release} and {@code lock_handoff}: nil, 0, or more (released or handed over). */
        static ReleaseOutcome fromScript(Long reply) {
            if (reply == null) {
                return NOT_HELD;
            }
            return reply == 0L ? STILL_HELD : RELEASED;
        }
    }

    /**
     * What a release found, how many pub/sub subscribers its unlock message reached (0 unless
     * {@link ReleaseOutcome#RELEASED}; this client counts when it is subscribed to the channel),
     * whether the lock went straight to another client in line instead ({@code granted}), and
     * whether Redis refused a message of it ({@code refused}: an ACL user without the channel; the
     * release itself landed, and the waiters the message was for look again when the lease they
     * saw runs out: see {@link RefusedMessages}).
     */
    record Release(ReleaseOutcome outcome, long listeners, boolean granted, boolean refused) {
        public Release(ReleaseOutcome outcome, long listeners, boolean granted) {
            this(outcome, listeners, granted, false);
        }

        public Release(ReleaseOutcome outcome, long listeners) {
            this(outcome, listeners, false);
        }

        /** The release scripts' reply: granted, and a message refused. */
        static final long GRANTED_REFUSED = -2;
        /** The release scripts' reply: released, not granted, and a message refused. */
        static final long RELEASED_REFUSED = -3;
        private static final Release NOT_HELD = new Release(ReleaseOutcome.NOT_HELD, 0);
        private static final Release STILL_HELD = new Release(ReleaseOutcome.STILL_HELD, 0);
        private static final Release HEARD_BY_NONE = new Release(ReleaseOutcome.RELEASED, 0);
        private static final Release GRANTED = new Release(ReleaseOutcome.RELEASED, 0, true);
        private static final Release GRANTED_UNHEARD = new Release(ReleaseOutcome.RELEASED, 0, true, true);
        private static final Release RELEASED_UNHEARD = new Release(ReleaseOutcome.RELEASED, 0, false, true);

        /**
         * Reads the release scripts: nil, 0, -1 (granted), -2 (granted, a message refused), -3
         * (released, a message refused), or 1 + the subscribers its message reached.
         */
        static Release fromScript(Long reply) {
            if (reply == null) {
                return NOT_HELD;
            }
            long value = reply;
            if (value < 0) {
                return value == RELEASED_REFUSED ? RELEASED_UNHEARD : value == GRANTED_REFUSED ? GRANTED_UNHEARD : GRANTED;
            }
            if (value <= 1) {
                return value == 0 ? STILL_HELD : HEARD_BY_NONE; // the common answers: no record made
            }
            return new Release(ReleaseOutcome.RELEASED, value - 1, false);
        }
    }

}
