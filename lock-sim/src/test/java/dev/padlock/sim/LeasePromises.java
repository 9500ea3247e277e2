package dev.padlock.sim;

import dev.padlock.sim.redis.ModelRedis;
import java.util.HashMap;
import java.util.Map;
import java.util.SortedMap;

/**
 * The lease API's own promises ("Leases: ownership by a handle"), on top of what {@link Promises}
 * checks of a lease's hold as of any other: whenever an owner reads {@code safeFor() > 0} at
 * virtual time t (here: after every event, and as it is told it holds and before it releases), the
 * model Redis holds the lease's field with a TTL that ends no earlier than t + safeFor(); when the
 * lease-lost listener names a lease, its {@code onLost} action has run and {@code safeFor()} is
 * zero; and a lease its owner released never runs it. A lease its lock was taken from (a force
 * unlock, a restart) is excused, as any holder is.
 */
final class LeasePromises {
    private final Episode episode;
    private final Promises promises;
    /** Every lease of the episode, by owner id (client ids differ by lease: the ids are unique). */
    private final Map<Long, LeaseHold> leases = new HashMap<>();
    private final java.util.List<LeaseHold> started = new java.util.ArrayList<>();

    LeasePromises(Episode episode, Promises promises) {
        this.episode = episode;
        this.promises = promises;
    }

    /** An owner asked for a lease. */
    void started(LeaseHold lease) {
        leases.put(lease.belief.owner, lease);
        started.add(lease);
    }

    /** The lease of owner id {@code owner}; null when none of the episode has it. */
    LeaseHold lease(long owner) {
        return leases.get(owner);
    }

    /** After every event: each lease held reads its {@code safeFor()}. */
    void afterStep(SortedMap<String, ModelRedis.Entry> keys) {
        for (LeaseHold lease : started) {
            if (lease.handle != null && lease.belief.count() > 0 && !lease.releaseSent) {
                safeFor(keys, lease);
            }
        }
    }

    /** The owner reads {@code lease.safeFor()} now. */
    void safeFor(LeaseHold lease) {
        safeFor(promises.keys(), lease);
    }

    private void safeFor(SortedMap<String, ModelRedis.Entry> keys, LeaseHold lease) {
        long safe = lease.handle.safeFor().toNanos();
        Belief belief = lease.belief;
        if (safe <= 0 || belief.unchecked() || promises.undercut(belief)) {
            return;
        }
        long now = episode.world.nanoTime();
        Promises.Holding hash = promises.holding(keys, belief.kind, belief.field);
        if (hash.count() < 1 || hash.expiry() < now + safe) {
            episode.fail(lease + " reads safeFor() = " + Promises.millis(safe) + " ms at " + Promises.millis(now)
                    + " ms, but Redis " + (hash.count() < 1 ? "does not hold its field"
                    : "holds its field until " + Promises.millis(hash.expiry()) + " ms") + " (" + belief + ")");
        }
    }

    /** The lease-lost listener named lease owner {@code owner} on {@code lockName}. */
    void heard(long owner, String lockName) {
        LeaseHold lease = leases.get(owner);
        if (lease == null) {
            return;
        }
        lease.heardLost = true;
        if (lease.handle == null || lease.releaseSent || lease.belief.count() == 0) {
            return; // lost before its owner had it, or after it let go: nothing was promised to it
        }
        if (!lease.onLostRuns()) {
            episode.fail("the lease-lost listener named " + lease + " (" + lockName + "), but its onLost did not run");
        } else if (!lease.handle.safeFor().isZero()) {
            episode.fail("the lease-lost listener named " + lease + " (" + lockName + "), but it reads safeFor() = "
                    + lease.handle.safeFor());
        }
    }

    /** At the end of the episode: no lease released by its owner ran its {@code onLost}, unless it was lost first. */
    void atEnd() {
        for (LeaseHold lease : started) {
            if (lease.releaseSent && !lease.heardLost && !undercutSince(lease) && lease.onLostRan()) {
                episode.fail(lease + " ran its onLost, yet its owner released it and nothing took it");
            }
        }
    }

    /** Whether a force unlock or a restart struck its lock since it was asked for (its own client's tells the lease). */
    private boolean undercutSince(LeaseHold lease) {
        for (String key : lease.belief.kind.keys()) {
            Long at = episode.undercut.get(key);
            if (at != null && at >= lease.askedAt) {
                return true;
            }
        }
        return false;
    }
}
