package dev.padlock.internal.composite;

import java.util.concurrent.CompletableFuture;

/**
 * A component lock that makes a red lock round's attempt without the bound on asynchronous calls
 * (their wait plus twice the command timeout). A red lock closes its rounds on its own timer and
 * gives back replies that come late; an attempt cut at that bound would only add a cancel, and a
 * component that looks failed to the round while its attempt may still land.
 */
public interface RoundAttempts {

    /**
     * One attempt without wait for {@code threadId}, as {@code tryLockAsync(0, leaseMillis,
     * MILLISECONDS, threadId)} but not cut at the bound.
     *
     * @param leaseMillis the lease; {@link dev.padlock.internal.lease.LeaseMillis#WATCHDOG}: the watchdog's
     */
    CompletableFuture<Boolean> tryOnceAsync(long leaseMillis, long threadId);
}
