/**
 * Lease clocks: what the engine tells a lease ({@link dev.padlock.LockLease}, a hold owned by a
 * handle rather than a thread, whose owner id no thread uses). Each lease's
 * {@link dev.padlock.internal.lease.LeaseClock} learns when each request that set its TTL was
 * sent, and whether the lease was lost, so that {@code safeFor()} is a bound it can rely on;
 * {@link dev.padlock.internal.lease.LeasedWork} runs work under a lease and stops it when a
 * {@link dev.padlock.internal.lease.LeaseGuard} finds the lease lost or about to run out. The
 * leases themselves are made in {@code dev.padlock.internal}. Uses {@code protocol}, {@code redis}
 * and {@code base}.
 */
@NullMarked
package dev.padlock.internal.lease;

import org.jspecify.annotations.NullMarked;
