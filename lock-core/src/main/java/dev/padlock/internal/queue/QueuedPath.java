package dev.padlock.internal.queue;

import static dev.padlock.internal.base.Nulls.castToNonNull;

import dev.padlock.RedisUnavailableException;
import dev.padlock.internal.acquire.AcquireContext;
import dev.padlock.internal.acquire.AcquirePath;
import dev.padlock.internal.acquire.PendingAcquire;
import dev.padlock.internal.protocol.LocalHandOff;
import dev.padlock.internal.protocol.LockProtocol;
import dev.padlock.internal.protocol.LockProtocol.ReleaseOutcome;
import dev.padlock.internal.redis.RedisErrors;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The queued path: one lock object's acquisitions and releases through its client's
 * {@link LocalQueue} of the name, which hands the lock from owner to owner of this client without
 * a round trip where its kind allows (the plain and spin locks), and lets the fenced lock, whose
 * holder may pass it only to a plain owner, share the same view of who holds.
 */
public final class QueuedPath implements AcquirePath {
    private final LocalQueues queues;
    private final LockProtocol protocol;
    private final AcquireContext services;
    private final boolean spin;
    /** Whether acquisitions go to Redis themselves rather than queue or take a hand-off. */
    private final boolean direct;

    /**
     * @param spin wait by back-off between attempts (the spin lock) instead of on pub/sub
     */
    public QueuedPath(LocalQueues queues, LockProtocol protocol, LocalHandOff handOff, AcquireContext services,
            boolean spin) {
        this.queues = queues;
        this.protocol = protocol;
        this.services = services;
        this.spin = spin;
        this.direct = !handOff.queuesLocally();
    }

    /**
     * What {@code protocol}, a kind in a local queue, can do there: every kind in one came by this
     * path, which only a kind that {@linkplain LockProtocol#localHandOff() hands off locally} takes.
     */
    static LocalHandOff handOffOf(LockProtocol protocol) {
        return castToNonNull(protocol.localHandOff()); // in a local queue: see above
    }

    @Override
    public PendingAcquire acquire(long owner, long leaseMillis, long waitNanos) {
        return queues.acquire(protocol, services, spin, owner, leaseMillis, waitNanos, direct);
    }

    @Override
    public CompletableFuture<ReleaseOutcome> release(long owner) {
        return queues.release(protocol, services, owner);
    }

    @Override
    public boolean counts(long owner) {
        return queues.counts(protocol.localKey(), owner);
    }

    /**
     * Waiters of this client learn of a force unlock that answered; one that got no answer may have
     * deleted the lock, so they do not wait on a guess either.
     */
    @Override
    public CompletableFuture<Boolean> forceUnlock(Supplier<CompletableFuture<Boolean>> send) {
        long sentAt = queues.confirmations();
        return send.get().whenComplete((released, failure) -> {
            if (failure == null) {
                queues.onForceUnlocked(protocol.localKey(), sentAt);
            } else if (RedisErrors.unwrap(failure) instanceof RedisUnavailableException) {
                queues.onForceUnlockInDoubt(protocol.localKey(), sentAt);
            }
        });
    }
}
