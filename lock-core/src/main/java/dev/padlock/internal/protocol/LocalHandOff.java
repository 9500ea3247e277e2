package dev.padlock.internal.protocol;

import dev.padlock.internal.protocol.LockProtocol.Attempt;
import dev.padlock.internal.protocol.LockProtocol.Release;
import dev.padlock.internal.protocol.LockProtocol.ReleaseOutcome;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;

/**
 * What a kind that shares its client's local view of the name can do (the plain, spin and fenced
 * locks, which share one hash): its acquisitions and releases go through the client's one
 * {@code LocalQueue} of the name, which knows who of this client holds it, and its holder passes
 * the lock to another owner of the client in one call. Got from {@link LockProtocol#localHandOff()}.
 */
public interface LocalHandOff {

    /**
     * Whether this kind's own acquisitions queue locally and may be handed the lock (the plain and
     * spin locks); when not (the fenced lock, each of whose holders takes its token from Redis),
     * they acquire on Redis every time, while its holders still hand off to queued owners.
     */
    boolean queuesLocally();

    /**
     * An acquisition's first attempt, when it takes no place in line: a claim without a place when
     * the owner holds none of the lock ({@code fresh}) and this kind
     * {@linkplain LockProtocol#claiming() claims}, else {@link LockProtocol#tryAcquire}; then
     * {@code handler} on its answer or its failure, as {@code handle} would. Kinds that can run it
     * in the reply's own stage do: an uncontended acquisition's first attempt comes this way.
     */
    <R> CompletableFuture<R> firstAttempt(long leaseMillis, long threadId, boolean fresh, boolean willWait,
            BiFunction<? super Attempt, Throwable, R> handler);

    /**
     * {@link LockProtocol#release}; when the lock then goes to another client in line (a kind that
     * {@linkplain LockProtocol#granting() grants}), this client gets back in line at the tail for
     * owner {@code nextThreadId} ({@code LocalQueue.NONE}: it does not), whose lease is
     * {@code nextLeaseMillis}, with that owner's place nonce. Then {@code handler} on its release or
     * its failure, as {@code handle} would; kinds that can run it in the reply's own stage do (every
     * uncontended unlock of the plain lock comes this way).
     */
    <R> CompletableFuture<R> release(long threadId, long rearmLeaseMillis, long nextThreadId, long nextLeaseMillis,
            long nextPlaceNonce, BiFunction<? super Release, Throwable, R> handler);

    /**
     * Passes the lock from {@code fromThreadId} to {@code toThreadId} of the same client in one
     * call, waking nobody. {@link ReleaseOutcome#RELEASED} means handed over: the successor holds
     * it once with {@code leaseMillis}.
     *
     * @param rearmLeaseMillis as for {@link LockProtocol#release}, when the holder still has holds
     */
    CompletableFuture<ReleaseOutcome> handOff(long fromThreadId, long toThreadId, long leaseMillis,
            long rearmLeaseMillis);

    /**
     * Notes on Redis since when owner {@code threadId} has held the lock, {@code heldForMillis}
     * ago by this client's clock, as its first holds do not write it themselves (see
     * {@code lock_since.lua}); completes with whether it was written.
     */
    CompletableFuture<Boolean> noteSince(long threadId, long heldForMillis);
}
