package dev.padlock.sim;

import dev.padlock.LockLease;
import java.util.concurrent.CountDownLatch;

/**
 * One lease an owner acquires through the lease API ({@link LockLease}), from the call on: the
 * belief about its field (a hold like any other, of owner id {@link Belief#owner}, a negative
 * long), its handle once told held, and what became of it.
 */
final class LeaseHold {
    final Belief belief;
    /** When it was asked for (virtual nanos). */
    final long askedAt;
    /** Null until the owner is told it holds. */
    LockLease handle;
    /** The client's lease-lost listener named it. */
    boolean heardLost;
    /** Its owner sent its release. */
    boolean releaseSent;
    /** Counted down by its {@code onLost} action, on whatever thread the engine runs it. */
    private final CountDownLatch onLostRan = new CountDownLatch(1);

    LeaseHold(Belief belief, long askedAt) {
        this.belief = belief;
        this.askedAt = askedAt;
    }

    /** Its owner is told it holds: its {@code onLost} action is registered. */
    void told(LockLease lease) {
        handle = lease;
        lease.onLost(onLostRan::countDown);
    }

    /** Whether its {@code onLost} action ran. */
    boolean onLostRan() {
        return onLostRan.getCount() == 0;
    }

    /** Whether its {@code onLost} action ran, or runs within a few real seconds (it runs off the simulation's thread). */
    boolean onLostRuns() {
        try {
            return onLostRan.await(10, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return onLostRan();
        }
    }

    @Override
    public String toString() {
        return "lease " + belief.client.id + ":" + belief.owner + " on " + belief.kind;
    }
}
