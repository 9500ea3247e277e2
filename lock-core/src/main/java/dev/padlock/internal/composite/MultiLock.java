package dev.padlock.internal.composite;

import dev.padlock.LockObserver;
import dev.padlock.RLock;
import dev.padlock.RedisUnavailableException;
import dev.padlock.internal.acquire.PendingAcquire;
import dev.padlock.internal.base.WaitBudget;
import dev.padlock.internal.lease.LeaseExtending;
import dev.padlock.internal.lease.LeaseMillis;
import dev.padlock.internal.redis.RedisErrors;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * An {@link RLock} held only when all its component locks are held
 * ({@link dev.padlock.LockClient#getMultiLock}). The components may come from different clients.
 *
 * <h2>Implementation notes</h2>
 * Components are acquired one at a time, in one fixed order: sorted by name, ties in the given
 * order. Two multi locks over the same names thus take them in the same order. An owner may still
 * hold a later component without the earlier ones (an outer hold whose first component was
 * force-unlocked or ran out, or a component locked alone), so an unbounded wait holds the earlier
 * components while it waits for the rest one round at most ({@link #ROUND_NANOS_PER_COMPONENT}
 * each), then gives them back and starts again: two waits cannot deadlock each other. Each component gets the wait left on one {@link WaitBudget}
 * deadline ({@code 0}: one attempt), and the lease as given. The first components' leases start
 * earlier than the last one's and may run out while it is awaited (a fixed lease's end, or a
 * watchdog whose renewals failed): when taking them all took more than 1 % of a fixed lease (2 ms
 * at least), the earlier ones are confirmed in one more round trip (a fixed lease extended to the
 * lease from then, {@link LeaseExtending}; a watchdog-held one asked for its hold count), and when
 * one had run out, the rest are given back and the acquisition starts again while wait is left.
 * Told held, every component thus holds, a fixed lease for the lease less that slack from then.
 * When a component is not acquired in
 * time, fails, or the acquisition is cancelled, the components this call took are unlocked again
 * in reverse order before the outcome is reported (roll-back): a call that does not return held
 * leaves nothing behind, except a component whose own acquisition was cancelled in flight, which
 * that component gives back itself, as {@link RLock#lockAsync} says.
 *
 * <p>One owner's acquisitions of one multi lock take turns ({@link OwnerTurns}), across all the
 * objects of its client over the same components: each starts once the owner's earlier one has
 * settled. A round that gives back what it took unlocks by the
 * owner's field, and a component found no longer held (its lease ran out meanwhile) is unlocked
 * too; with two acquisitions of one owner in flight, that unlock could remove the hold the other
 * had just taken on it.
 *
 * <p>Reentrancy, leases and watchdog renewal are the components' own; besides those turns this
 * class keeps no state between calls. Reads combine the components' answers ({@link CompositeLock}):
 * locked or held when all are, the smallest hold count, the shortest time to live. An unlock
 * unlocks every component, also when one fails, then throws the first failure
 * ({@link IllegalMonitorStateException} when the owner does not hold every component).
 */
public final class MultiLock extends CompositeLock {
    /**
     * How long an unbounded acquisition holding its first components waits for each later one, in
     * one round, before it gives back what it took and starts again (Redisson's multi lock waits
     * as long per component).
     */
    static final long ROUND_NANOS_PER_COMPONENT = TimeUnit.MILLISECONDS.toNanos(1_500);

    /** The one-call path over the components (see {@link MultiBatch}); null when they cannot take it. */
    private final @Nullable MultiBatch batch;

    private MultiLock(List<RLock> locks, CompositeServices services) {
        super("multi", "multi lock", LockObserver.Kind.MULTI, locks, locks.size(), services);
        this.batch = MultiBatch.of(locks);
    }

    /**
     * A multi lock over {@code locks} of the client whose {@code services} are given: its
     * acquisitions and holds told to its observer when one is set, its waits timed by its clock.
     *
     * @throws NullPointerException when {@code locks} or one of them is null
     * @throws IllegalArgumentException when {@code locks} is empty or holds one object twice
     */
    public static RLock of(CompositeServices services, RLock... locks) {
        List<RLock> sorted = new ArrayList<>(CompositeLocks.components(locks));
        sorted.sort(Comparator.comparing(RLock::getName));
        return new MultiLock(List.copyOf(sorted), services);
    }

    @Override
    PendingAcquire startAcquisition(WaitBudget budget, long leaseTime, TimeUnit unit, long threadId) {
        MultiLockAcquisition started = new MultiLockAcquisition(locks, batch, budget, clock, timer,
                LeaseMillis.of(leaseTime, unit), threadId);
        started.next();
        return started;
    }

    /**
     * Unlocks every component, also when one fails, then fails with the first failure: in one call
     * while the owner holds this multi lock by one call ({@link MultiBatch#mayRelease}), else one by one.
     */
    @Override
    CompletableFuture<Void> release(long threadId) {
        MultiBatch one = batch;
        if (one != null && one.mayRelease(threadId)) {
            return releaseByBatch(one, threadId);
        }
        return CompositeLocks.bare(CompositeLocks.callAll(locks, lock -> lock.unlockAsync(threadId))
                .thenApply(outcomes -> {
                    if (outcomes.stream().anyMatch(outcome -> outcome.failure() instanceof RedisUnavailableException)) {
                        // its caller hears the outcome is unknown and unlocks no more: holds left on the
                        // other components are taken as nothing too, not renewed for ever
                        for (int i = 0; i < locks.size(); i++) {
                            if (!outcomes.get(i).failed() && locks.get(i) instanceof HoldsForgetting forgetting) {
                                forgetting.forgetHolds(threadId);
                            }
                        }
                    }
                    if (outcomes.stream().anyMatch(CompositeLocks.Outcome::failed)) {
                        throw CompositeLocks.firstFailure(outcomes);
                    }
                    return null;
                }));
    }

    /** {@link #release} in one call: the same outcomes and exceptions as one by one. */
    private CompletableFuture<Void> releaseByBatch(MultiBatch one, long threadId) {
        return CompositeLocks.bare(one.release(threadId).handle((outcomes, failure) -> {
            if (failure != null) {
                Throwable cause = RedisErrors.unwrap(failure);
                if (cause instanceof RedisUnavailableException) {
                    throw new RedisUnavailableException("the unlock of '" + getName() + "' by " + one.ownerField(threadId)
                            + " could not be confirmed: if it was its last hold and did not land, the hold lasts until"
                            + " its lease runs out (this client no longer renews it); a hold of several is given back"
                            + " once Redis answers: " + cause.getMessage(), cause);
                }
                throw CompositeLocks.unchecked(cause);
            }
            String notHeld = one.firstNotHeld(outcomes, threadId);
            if (notHeld != null) {
                throw new IllegalMonitorStateException(notHeld);
            }
            return null;
        }));
    }

    @Override
    public CompletableFuture<Boolean> forceUnlockAsync() {
        return CompositeLocks.bare(CompositeLocks.callAll(locks, RLock::forceUnlockAsync).thenApply(outcomes -> {
            if (outcomes.stream().anyMatch(CompositeLocks.Outcome::failed)) {
                throw CompositeLocks.firstFailure(outcomes);
            }
            return outcomes.stream().anyMatch(outcome -> outcome.value());
        }));
    }
}
