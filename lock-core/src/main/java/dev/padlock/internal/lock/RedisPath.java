package dev.padlock.internal.lock;

import dev.padlock.RedisUnavailableException;
import dev.padlock.internal.acquire.AcquirePath;
import dev.padlock.internal.acquire.AcquireRequest;
import dev.padlock.internal.acquire.LockAcquisition;
import dev.padlock.internal.acquire.PendingAcquire;
import dev.padlock.internal.grant.GrantWaits;
import dev.padlock.internal.protocol.GrantKind;
import dev.padlock.internal.protocol.Granting;
import dev.padlock.internal.protocol.LocalHandOff;
import dev.padlock.internal.protocol.LockProtocol;
import dev.padlock.internal.protocol.LockProtocol.ReleaseOutcome;
import dev.padlock.internal.queue.QueuedPath;
import dev.padlock.internal.redis.RedisErrors;
import dev.padlock.internal.renewal.Watchdog;
import java.util.concurrent.CompletableFuture;

/**
 * A path straight to Redis, without this client's local queue: {@link Granted} waits in a line on
 * Redis that a release grants from (the fair, read and write locks); {@link Direct} is the wait
 * loop alone (a kind whose holds must each be acknowledged by replicas, which can take neither a
 * hand-off nor a grant). Their releases are the same: one release call, with the watchdog's and
 * the grant waits' bookkeeping around it.
 */
abstract sealed class RedisPath implements AcquirePath {
    final LockProtocol protocol;
    final LockServices services;
    final boolean spin;

    private RedisPath(LockProtocol protocol, LockServices services, boolean spin) {
        this.protocol = protocol;
        this.services = services;
        this.spin = spin;
    }

    /**
     * The path of a lock object of {@code protocol}'s kind: the queued path for the kinds that share
     * this client's local view of the name (plain, spin, fenced), the granted path for the kinds
     * that wait in a line on Redis (fair, read, write), else the direct one.
     */
    static AcquirePath of(LockProtocol protocol, LockServices services, boolean spin) {
        LocalHandOff handOff = protocol.localHandOff();
        if (handOff != null) {
            return new QueuedPath(services.queues(), protocol, handOff, services, spin);
        }
        Granting granting = protocol.granting();
        return granting != null ? new Granted(protocol, granting, services, spin) : new Direct(protocol, services, spin);
    }

    /** The granted path: see the class notes. */
    static final class Granted extends RedisPath {
        private final boolean fair;

        Granted(LockProtocol protocol, Granting granting, LockServices services, boolean spin) {
            super(protocol, services, spin);
            this.fair = granting.grantKind() == GrantKind.FAIR;
        }

        @Override
        public PendingAcquire acquire(long owner, long leaseMillis, long waitNanos) {
            // the fair lock's hash is the plain lock's: this client's view of it learns the holder
            Runnable onHeld = !fair ? null
                    : () -> services.queues().onHeldElsewhere(protocol.localKey(), owner, leaseMillis);
            return services.grantWaits().start(protocol, services, leaseMillis, owner, waitNanos, spin, onHeld);
        }
    }

    /** The direct path: see the class notes. */
    static final class Direct extends RedisPath {
        Direct(LockProtocol protocol, LockServices services, boolean spin) {
            super(protocol, services, spin);
        }

        @Override
        public PendingAcquire acquire(long owner, long leaseMillis, long waitNanos) {
            return LockAcquisition.start(services, protocol, AcquireRequest.of(owner, leaseMillis, waitNanos, spin, false));
        }
    }

    @Override
    public boolean counts(long owner) {
        return services.grantWaits().counts(protocol, owner);
    }

    /** One release call, with the watchdog's and the grant waits' bookkeeping around it. */
    @Override
    public CompletableFuture<ReleaseOutcome> release(long owner) {
        GrantWaits grantWaits = services.grantWaits();
        grantWaits.released(protocol, owner);
        Watchdog watchdog = services.watchdog();
        long rearm = watchdog.beforeRelease(protocol, owner) ? watchdog.leaseMillis() : 0;
        boolean fair = GrantKind.of(protocol) == GrantKind.FAIR;
        return protocol.release(owner, rearm).whenComplete((release, failure) -> {
            boolean stillHeld = failure == null && release.outcome() == ReleaseOutcome.STILL_HELD;
            if (failure != null && RedisErrors.unwrap(failure) instanceof RedisUnavailableException) {
                // with other holds the owner holds on, else whatever it left is no hold of the owner's
                stillHeld = grantWaits.releaseLost(protocol, owner, services);
            } else {
                grantWaits.releaseAnswered(protocol, owner, stillHeld);
                // a fair lock shares its hash and renewal with the plain lock's holds of the owner
                if (stillHeld && !(fair && services.queues().counts(protocol.localKey(), owner))) {
                    stillHeld = grantWaits.holdsOnAfterRelease(protocol, owner, services.clock().nanoTime());
                }
            }
            // released, not held, or unknown without other holds: the renewal ends
            watchdog.afterRelease(protocol, owner, stillHeld);
            if (failure == null && !stillHeld && fair) {
                // a fair lock shares its hash with the plain, spin and fenced locks: this client's
                // view of that hash must not keep the owner as holder
                services.queues().onReleasedElsewhere(protocol.localKey(), owner);
            }
        }).thenApply(LockProtocol.Release::outcome);
    }
}
