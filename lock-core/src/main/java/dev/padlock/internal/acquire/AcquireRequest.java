package dev.padlock.internal.acquire;

import dev.padlock.internal.lease.LeaseMillis;

/**
 * What one acquisition asks for.
 *
 * @param owner the owner's thread id (its hash field is {@code <clientId>:<owner>})
 * @param leaseMillis the lease asked for: fixed, or {@link LeaseMillis#WATCHDOG} (a TTL of the
 *     watchdog timeout, which the watchdog renews once held)
 * @param waitNanos the wait budget; {@code 0} or less for one attempt,
 *     {@link dev.padlock.internal.base.WaitBudget#FOREVER} for no bound
 * @param spin wait by back-off between attempts instead of on the unlock channel: no pub/sub
 * @param fresh whether the owner holds none of the lock as far as its caller knows (not a
 *     re-entry): its attempts are then claims, for kinds that claim
 * @param placeNonce identifies the place in line its failed claims take and the grant that may
 *     answer it; 0 for none
 * @param inLine whether a release already put this client in line for this owner with that nonce
 */
public record AcquireRequest(long owner, long leaseMillis, long waitNanos, boolean spin,
        boolean fresh, long placeNonce, boolean inLine) {

    /** A request without a place in line. */
    public static AcquireRequest of(long owner, long leaseMillis, long waitNanos, boolean spin, boolean fresh) {
        return new AcquireRequest(owner, leaseMillis, waitNanos, spin, fresh, 0, false);
    }

    /** A request with a place in line: {@code placeNonce} (0 for none), and whether a release already put it there. */
    public static AcquireRequest inLine(long owner, long leaseMillis, long waitNanos, boolean spin, boolean fresh,
            long placeNonce, boolean alreadyInLine) {
        return new AcquireRequest(owner, leaseMillis, waitNanos, spin, fresh, placeNonce, alreadyInLine);
    }

    /** This request with a place in line: {@code placeNonce}, and whether a release already put it there. */
    public AcquireRequest inLine(long nonce, boolean alreadyInLine) {
        return new AcquireRequest(owner, leaseMillis, waitNanos, spin, fresh, nonce, alreadyInLine);
    }
}
