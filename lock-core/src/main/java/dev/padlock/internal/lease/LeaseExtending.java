package dev.padlock.internal.lease;

import java.util.concurrent.CompletableFuture;

/**
 * A lock that can extend an owner's fixed lease on Redis: a {@link dev.padlock.LockLease}'s
 * {@code extend}, and the multi lock, which takes its components one after another, so with a
 * fixed lease it extends the earlier ones once the last is held; components that cannot are taken
 * as they are.
 */
public interface LeaseExtending {

    /**
     * Sets the lease of {@code threadId}'s hold to at least {@code leaseMillis} from now (never
     * shortening a longer one) when it still holds; completes with whether it did.
     */
    CompletableFuture<Boolean> extendLeaseAsync(long leaseMillis, long threadId);
}
