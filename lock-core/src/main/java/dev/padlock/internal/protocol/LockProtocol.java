package dev.padlock.internal.protocol;

import dev.padlock.internal.script.LuaScript;
import dev.padlock.internal.script.ScriptRunner;
import io.lettuce.core.ScriptOutputType;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;

/**
 * How one kind of lock acquires, releases and renews on Redis. The wait loop, the watchdog and
 * the facade are shared by every kind; only this differs.
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
     * Whether owners of one client may queue locally and pass the lock on with {@link #handOff}
     * (see {@code LocalQueue}); kinds that keep their own order or hand out tokens acquire on
     * Redis every time.
     */
    default boolean handsOffLocally() {
        return false;
    }

    /**
     * Whether this kind's acquisitions and releases go through the client's one {@code LocalQueue}
     * of its name, so that every kind on the same hash (plain, spin, fenced) shares one view of who
     * of this client holds it. True for every kind that {@link #handsOffLocally()}; a kind that
     * shares the view without handing off acquires on Redis every time.
     */
    default boolean sharesLocalView() {
        return handsOffLocally();
    }

    /**
     * One acquisition attempt for {@code threadId}, re-entering when it already holds the lock.
     *
     * @param willWait whether a failed attempt will be followed by a wait (a fair lock then
     *     queues the owner; a one-shot attempt must not)
     */
    CompletableFuture<Attempt> tryAcquire(long leaseMillis, long threadId, boolean willWait);

    /**
     * {@link #tryAcquire(long, long, boolean)}, for kinds that {@link #grants()} without claiming (the
     * fair and read-write locks): when it fails and {@code willWait}, it takes a place in line for owner
     * {@code threadId} with {@code placeNonce} (0: it takes none); {@code inLine} says that an earlier
     * attempt of the same wait may have taken it, so that the owner's field in the lock is a grant.
     */
    default CompletableFuture<Attempt> tryAcquire(long leaseMillis, long threadId, boolean willWait, long placeNonce,
            boolean inLine) {
        return tryAcquire(leaseMillis, threadId, willWait);
    }

    /**
     * {@link #tryAcquire(long, long, boolean, long, boolean)}; with {@code newCount}, for kinds that
     * {@link #grants()} without claiming, the attempt is a claim: the owner holds none of the lock
     * as far as its client knows (see {@link UnconfirmedUnlocks}), so a field of its already there
     * is no hold to add to: it then holds exactly once. Such an attempt may be sent again safely.
     */
    default CompletableFuture<Attempt> tryAcquire(long leaseMillis, long threadId, boolean willWait, long placeNonce,
            boolean inLine, boolean newCount) {
        return tryAcquire(leaseMillis, threadId, willWait, placeNonce, inLine);
    }

    /**
     * An acquisition's first attempt, when it takes no place in line: a claim without a place
     * ({@link #tryClaim(long, long, boolean, long, boolean)}) when the owner holds none of the lock
     * ({@code fresh}) and this kind {@link #claims()}, else {@link #tryAcquire(long, long, boolean)};
     * then {@code handler} on its answer or its failure, as {@code handle} would. Kinds that can run
     * it in the reply's own stage do: an uncontended acquisition's first attempt comes this way.
     */
    default <R> CompletableFuture<R> firstAttempt(long leaseMillis, long threadId, boolean fresh, boolean willWait,
            BiFunction<? super Attempt, Throwable, R> handler) {
        CompletableFuture<Attempt> attempt;
        try {
            attempt = fresh && claims() ? tryClaim(leaseMillis, threadId, willWait, 0, false)
                    : tryAcquire(leaseMillis, threadId, willWait);
        } catch (RuntimeException e) {
            attempt = CompletableFuture.failedFuture(e);
        }
        return attempt.handle(handler);
    }

    /**
     * Whether this kind has {@link #tryClaim} and {@link #abandon}: first holds that may be sent
     * again when a reply was lost, and given back when their caller gave up on them unanswered.
     */
    default boolean claims() {
        return false;
    }

    /**
     * One attempt for {@code threadId} when it holds none of the lock as far as its caller knows:
     * like {@link #tryAcquire}, but when the owner's field is already there (this same attempt,
     * sent again after its reply was lost) it holds exactly once, so the call is idempotent. Only
     * when {@link #claims()}.
     */
    default CompletableFuture<Attempt> tryClaim(long leaseMillis, long threadId, boolean willWait) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " does not claim");
    }

    /**
     * {@link #tryClaim(long, long, boolean)}, for kinds that {@link #grants()}: when it fails and
     * {@code willWait}, it puts this client in line for owner {@code threadId} with
     * {@code placeNonce} (0: it does not); {@code inLine} says that this client may already be in
     * line for the owner, which a claim that succeeds then leaves.
     */
    default CompletableFuture<Attempt> tryClaim(long leaseMillis, long threadId, boolean willWait, long placeNonce,
            boolean inLine) {
        return tryClaim(leaseMillis, threadId, willWait);
    }

    /**
     * Whether a failed claim that will wait puts this client in line on Redis, so that a final
     * release by another client passes the lock straight to this client's owner and says so on
     * {@link #grantChannel()}: see {@link ExclusiveLockProtocol}.
     */
    default boolean grants() {
        return false;
    }

    /**
     * Whether a grant message alone tells its owner that it holds the lock (the message comes from
     * the script call that put the owner's field in). When not (a grant not acknowledged by replicas,
     * a PUBLISH that cannot count who heard it), the message only wakes the owner, whose next attempt
     * finds the grant.
     */
    default boolean grantMessageConfirms() {
        return grants();
    }

    /** This client's grant channel for the lock, or null when this kind does not {@link #grants()}. */
    default @Nullable String grantChannel() {
        return null;
    }

    /**
     * Which grant message kind answers this kind's places: {@link GrantKind#FAIR},
     * {@link GrantKind#READ} or {@link GrantKind#WRITE} for kinds that {@link #grants()} to one
     * owner's place (see {@code GrantWaits}), {@link GrantKind#PLAIN} for the rest.
     */
    default char grantKind() {
        return GrantKind.PLAIN;
    }

    /**
     * Notes when an owner that got the lock by a grant message got it ({@code elapsedMillis} ago),
     * for kinds whose grant does not write the owner's "since" itself: a note for
     * {@code padlock show}, never a change of the lease (the grant set the lease the owner asked
     * for). Completes with whether it was written; the default writes nothing.
     */
    default CompletableFuture<Boolean> noteGrantSince(long threadId, long elapsedMillis) {
        return CompletableFuture.completedFuture(false);
    }

    /**
     * Removes {@code threadId}'s field, whatever its count, waking waiters when the lock is then
     * free: a claim its caller gave up on before it was answered. Only when {@link #claims()}.
     */
    default CompletableFuture<Boolean> abandon(long threadId) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " does not claim");
    }

    /**
     * What Redis says of {@code threadId} now: acquired (with its token, for kinds that have one)
     * when its field is in the lock, else not acquired with an unknown TTL ({@code -2}). Asked
     * after an attempt whose reply was lost.
     */
    CompletableFuture<Attempt> confirm(long threadId);

    /**
     * {@link #confirm} for a re-entry whose reply was lost, sent while the owner held
     * {@code heldBefore} holds: acquired only when Redis counts more than that, so the owner's
     * other holds do not confirm it. Kinds that cannot count fall back to {@link #confirm}.
     */
    default CompletableFuture<Attempt> confirmReentry(long threadId, int heldBefore) {
        return confirm(threadId);
    }

    /**
     * An acquisition of {@code threadId} that attempted with {@code willWait} stopped without the
     * lock: forget any place it holds in a queue on Redis.
     */
    default CompletableFuture<Void> leaveQueue(long threadId) {
        return CompletableFuture.completedFuture(null);
    }

    /**
     * {@link #leaveQueue(long)} for an acquisition that took its place with {@code placeNonce} and
     * asked for {@code leaseMillis}; true when it found a grant to the owner instead, which the owner
     * now holds once with {@code leaseMillis} (a grant that came as it gave up).
     */
    default CompletableFuture<Boolean> leaveQueue(long threadId, long leaseMillis, long placeNonce) {
        return leaveQueue(threadId).thenApply(left -> false);
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

    /**
     * {@link #release(long, long)}; when the lock then goes to another client in line
     * ({@link #grants()}), this client gets back in line at the tail for owner {@code nextThreadId}
     * ({@code LocalQueue.NONE}: it does not), whose lease is {@code nextLeaseMillis}, with that
     * owner's place nonce.
     */
    default CompletableFuture<Release> release(long threadId, long rearmLeaseMillis, long nextThreadId,
            long nextLeaseMillis, long nextPlaceNonce) {
        return release(threadId, rearmLeaseMillis);
    }

    /**
     * {@link #release(long, long, long, long, long)}, then {@code handler} on its release or its
     * failure, as {@code handle} would; kinds that can run it in the reply's own stage do (every
     * uncontended unlock of the plain lock comes this way).
     */
    default <R> CompletableFuture<R> release(long threadId, long rearmLeaseMillis, long nextThreadId,
            long nextLeaseMillis, long nextPlaceNonce, @Nullable BiFunction<? super Release, Throwable, R> handler) {
        return release(threadId, rearmLeaseMillis, nextThreadId, nextLeaseMillis, nextPlaceNonce).handle(handler);
    }

    /** Deletes the lock whoever holds it; whether it was held. */
    CompletableFuture<Boolean> forceRelease();

    /** Whether anyone holds this lock now. */
    CompletableFuture<Boolean> isLocked();

    /**
     * Passes the lock from {@code fromThreadId} to {@code toThreadId} of the same client in one
     * call, waking nobody. {@link ReleaseOutcome#RELEASED} means handed over: the successor holds
     * it once with {@code leaseMillis}. Only called when {@link #sharesLocalView()}.
     *
     * @param rearmLeaseMillis as for {@link #release}, when the holder still has holds
     */
    default CompletableFuture<ReleaseOutcome> handOff(long fromThreadId, long toThreadId, long leaseMillis,
            long rearmLeaseMillis) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " does not hand off locally");
    }

    /**
     * Notes on Redis since when owner {@code threadId} has held the lock, {@code heldForMillis}
     * ago by this client's clock, for kinds whose first holds do not write it themselves (see
     * {@code lock_since.lua}); completes with whether it was written. Other kinds write nothing.
     */
    default CompletableFuture<Boolean> noteSince(long threadId, long heldForMillis) {
        return CompletableFuture.completedFuture(false);
    }

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
