package dev.padlock.internal.protocol;

import dev.padlock.internal.protocol.LockProtocol.Attempt;
import java.util.concurrent.CompletableFuture;

/**
 * What a kind with a line on Redis can do (the fair, read and write locks, and the plain lock
 * where its grants are on): a failed attempt that will wait takes a place in line, and a release
 * by another client passes the lock straight to the first place, saying so on the owner's client's
 * {@link #grantChannel()}. Got from {@link LockProtocol#granting()}.
 */
public interface Granting {

    /** This client's grant channel for the lock. */
    String grantChannel();

    /**
     * Which grant message kind answers this kind's places: {@link GrantKind#FAIR},
     * {@link GrantKind#READ} or {@link GrantKind#WRITE} for kinds that grant to one owner's place
     * (see {@code GrantWaits}), {@link GrantKind#PLAIN} for the plain lock, whose places are its
     * client's.
     */
    char grantKind();

    /**
     * Whether a grant message alone tells its owner that it holds the lock (the message comes from
     * the script call that put the owner's field in). When not (a grant not acknowledged by replicas,
     * a PUBLISH that cannot count who heard it), the message only wakes the owner, whose next attempt
     * finds the grant.
     */
    boolean grantMessageConfirms();

    /**
     * {@link LockProtocol#tryAcquire}, taking a place in line: when it fails and {@code willWait},
     * it takes one for owner {@code threadId} with {@code placeNonce} (0: it takes none);
     * {@code inLine} says that an earlier attempt of the same wait may have taken it, so that the
     * owner's field in the lock is a grant. With {@code newCount} the attempt is a claim: the owner
     * holds none of the lock as far as its client knows (see {@link UnconfirmedUnlocks}), so a
     * field of its already there is no hold to add to: it then holds exactly once, and the attempt
     * may be sent again safely. A kind that {@linkplain LockProtocol#claiming() claims} takes its
     * place by its claims instead, and sends a plain attempt here.
     */
    CompletableFuture<Attempt> tryAcquire(long leaseMillis, long threadId, boolean willWait, long placeNonce,
            boolean inLine, boolean newCount);

    /**
     * {@link LockProtocol#leaveQueue(long)} for an acquisition that took its place with
     * {@code placeNonce} and asked for {@code leaseMillis}; true when it found a grant to the owner
     * instead, which the owner now holds once with {@code leaseMillis} (a grant that came as it gave
     * up).
     */
    CompletableFuture<Boolean> leaveQueue(long threadId, long leaseMillis, long placeNonce);

    /**
     * Notes when an owner that got the lock by a grant message got it ({@code elapsedMillis} ago),
     * for kinds whose grant does not write the owner's "since" itself: a note for
     * {@code padlock show}, never a change of the lease (the grant set the lease the owner asked
     * for). Completes with whether it was written; kinds whose grants write it write nothing.
     */
    default CompletableFuture<Boolean> noteGrantSince(long threadId, long elapsedMillis) {
        return CompletableFuture.completedFuture(false);
    }
}
