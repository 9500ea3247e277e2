package dev.padlock.internal.protocol;

import dev.padlock.internal.protocol.LockProtocol.Attempt;
import java.util.concurrent.CompletableFuture;

/**
 * What a kind whose first holds are claims can do (the plain, spin and fenced locks): a first hold
 * that may be sent again when its reply was lost, and given back when its caller gave up on it
 * unanswered. Got from {@link LockProtocol#claiming()}.
 */
public interface Claiming {

    /**
     * One attempt for {@code threadId} when it holds none of the lock as far as its caller knows:
     * like {@link LockProtocol#tryAcquire}, but when the owner's field is already there (this same
     * attempt, sent again after its reply was lost) it holds exactly once, so the call is
     * idempotent. For kinds that also {@linkplain LockProtocol#granting() grant}: when it fails and
     * {@code willWait}, it puts this client in line for owner {@code threadId} with
     * {@code placeNonce} (0: it does not); {@code inLine} says that this client may already be in
     * line for the owner, which a claim that succeeds then leaves.
     */
    CompletableFuture<Attempt> tryClaim(long leaseMillis, long threadId, boolean willWait, long placeNonce,
            boolean inLine);

    /**
     * Removes {@code threadId}'s field, whatever its count, waking waiters when the lock is then
     * free: a claim its caller gave up on before it was answered.
     */
    CompletableFuture<Boolean> abandon(long threadId);
}
