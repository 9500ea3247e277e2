package dev.padlock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A semaphore whose permits are leases ({@link PermitLease}), in Redisson's
 * {@code RPermitExpirableSemaphore} format: the key {@code <name>} holds the free permits, the
 * sorted set {@code {<name>}:timeout} the permits in use (id to the epoch ms their lease ends), and
 * releases publish the free count on {@code redisson_sc:{<name>}}. A holder that dies gives its
 * permit back when its lease ends: the next call of any client on the semaphore counts it free
 * again, and waiters look again when the nearest lease ends. Lease ends are Redis's own time.
 *
 * <p>Waiting wakes on a release through pub/sub, at most as many waiters of a client as there are
 * free permits. A wait that ended (a cancelled future, an interrupt, its deadline) keeps no
 * permit. Counts of zero or less, negative waits and leases out of range fail with
 * {@link IllegalArgumentException} before anything reaches Redis; every call ends by its wait plus
 * twice the command timeout. {@code Duration.ZERO} as a lease asks for the watchdog's (renewed while
 * the client lives), as for {@link LockLease}.
 */
public interface RPermitExpirableSemaphore {

    /** {@return the semaphore's name: the key of its free permits} */
    String getName();

    /**
     * Sets the number of permits when none is set, and wakes the waiters.
     *
     * @param permits the number of permits, at least 1
     * @return whether it was set
     */
    boolean trySetPermits(int permits);

    /**
     * Adds permits, or removes them, and wakes the waiters that may go.
     *
     * @param permits how many to add; negative to remove; not 0
     */
    void addPermits(int permits);

    /**
     * The number of free permits now, once the permits whose lease ended are back.
     *
     * @return free permits: 0 when none was ever set
     */
    int availablePermits();

    /**
     * Takes a permit with a watchdog lease, waiting without bound.
     *
     * @return the permit
     * @throws InterruptedException when interrupted while waiting (no permit is kept)
     */
    default PermitLease acquire() throws InterruptedException {
        return acquire(Duration.ZERO);
    }

    /**
     * Takes a permit, waiting without bound.
     *
     * @param leaseTime the fixed lease; {@code Duration.ZERO} for the watchdog's
     * @return the permit
     * @throws InterruptedException when interrupted while waiting (no permit is kept)
     */
    PermitLease acquire(Duration leaseTime) throws InterruptedException;

    /**
     * Takes a permit with a watchdog lease, waiting up to {@code wait}.
     *
     * @param wait how long to wait, not negative
     * @return the permit, or empty when none came free in time
     * @throws InterruptedException when interrupted while waiting (no permit is kept)
     */
    default Optional<PermitLease> tryAcquire(Duration wait) throws InterruptedException {
        return tryAcquire(wait, Duration.ZERO);
    }

    /**
     * Takes a permit, waiting up to {@code wait}.
     *
     * @param wait how long to wait, not negative
     * @param leaseTime the fixed lease; {@code Duration.ZERO} for the watchdog's
     * @return the permit, or empty when none came free in time
     * @throws InterruptedException when interrupted while waiting (no permit is kept)
     */
    Optional<PermitLease> tryAcquire(Duration wait, Duration leaseTime) throws InterruptedException;

    /**
     * {@link #acquire()} without blocking; cancelling the future ends the wait.
     *
     * @return completes with the permit
     */
    default CompletableFuture<PermitLease> acquireAsync() {
        return acquireAsync(Duration.ZERO);
    }

    /**
     * {@link #acquire(Duration)} without blocking; cancelling the future ends the wait.
     *
     * @param leaseTime the fixed lease; {@code Duration.ZERO} for the watchdog's
     * @return completes with the permit
     */
    CompletableFuture<PermitLease> acquireAsync(Duration leaseTime);

    /**
     * {@link #tryAcquire(Duration)} without blocking; cancelling the future ends the wait.
     *
     * @param wait how long to wait, not negative
     * @return completes with the permit, or empty
     */
    default CompletableFuture<Optional<PermitLease>> tryAcquireAsync(Duration wait) {
        return tryAcquireAsync(wait, Duration.ZERO);
    }

    /**
     * {@link #tryAcquire(Duration, Duration)} without blocking; cancelling the future ends the wait.
     *
     * @param wait how long to wait, not negative
     * @param leaseTime the fixed lease; {@code Duration.ZERO} for the watchdog's
     * @return completes with the permit, or empty
     */
    CompletableFuture<Optional<PermitLease>> tryAcquireAsync(Duration wait, Duration leaseTime);
}
