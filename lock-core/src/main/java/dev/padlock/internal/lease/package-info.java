/**
 * Leases ({@link dev.padlock.LockLease}, a hold owned by a handle rather than a thread, whose owner
 * id no thread uses): the one home of the concept. {@link dev.padlock.internal.lease.Leases} is
 * the {@link dev.padlock.LeaseFactory} every lock object supplies and {@code RLock}'s lease methods
 * delegate to: it acquires a lease of any {@code RLock} through its owner-id methods ({@code LeaseAcquisition}) and hands out a
 * {@code HandleLease}, extended through {@link dev.padlock.internal.lease.LeaseExtending}. Each
 * lease's {@link dev.padlock.internal.lease.LeaseClock} learns when each request that set its TTL
 * was sent, and whether the lease was lost, so that {@code safeFor()} is a bound it can rely on;
 * {@link dev.padlock.internal.lease.LeasedWork} runs work under a lease and stops it when a
 * {@link dev.padlock.internal.lease.LeaseGuard} finds the lease lost or about to run out. Uses
 * {@code protocol}, {@code redis} and {@code base}.
 */
@NullMarked
package dev.padlock.internal.lease;

import org.jspecify.annotations.NullMarked;
