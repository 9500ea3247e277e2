package dev.padlock.internal.acquire;

import dev.padlock.internal.protocol.LockProtocol;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/** An acquisition in progress, however it waits: against Redis, or in the client's local queue. */
public interface PendingAcquire {

    /** Whether the lock was acquired; cancel it to stop waiting. */
    CompletableFuture<Boolean> result();

    /**
     * The result as the caller is told it: {@link #result()} itself, or, under a
     * {@link dev.padlock.LockObserver}, a future completed the same way once the observer was told.
     * Read outcomes from it; cancel {@link #result()}.
     */
    default CompletableFuture<Boolean> reported() {
        return result();
    }

    /**
     * Cancels {@link #result()} for a caller whose own future was cancelled; true when that came too
     * late: the lock was acquired already, so the caller, told its call was cancelled, holds one
     * hold it does not know of, which must be given back.
     */
    default boolean cancelTooLate() {
        CompletableFuture<Boolean> result = result();
        return !result.cancel(false) && !result.isCompletedExceptionally() && Boolean.TRUE.equals(result.getNow(false));
    }

    /** Whether the lock came by a local hand-off from another owner of this client. */
    default boolean handedOver() {
        return false;
    }

    /** Completes once the acquisition has stopped and given back whatever it had. */
    CompletableFuture<Void> settled();

    /** The fencing token it got, for kinds that have one; {@link LockProtocol.Attempt#NO_TOKEN} otherwise. */
    default long token() {
        return LockProtocol.Attempt.NO_TOKEN;
    }

    /**
     * Whether an attempt of it may have reached Redis: false only while it waits to send its first
     * (behind the give-back of what an earlier acquisition of its owner left, say), when it cannot
     * have moved its owner's hold count.
     */
    default boolean mayHaveLanded() {
        return true;
    }

    /** The last failure of a call Redis did not answer, while the acquisition rides it out; else null. */
    default @Nullable Throwable lastUnanswered() {
        return null;
    }
}
