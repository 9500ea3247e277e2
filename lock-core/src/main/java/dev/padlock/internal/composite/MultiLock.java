package dev.padlock.internal.composite;

import static dev.padlock.internal.composite.CompositeLocks.currentThreadId;

import dev.padlock.RLock;
import dev.padlock.RedisUnavailableException;
import dev.padlock.internal.acquire.PendingAcquire;
import dev.padlock.internal.base.CallBound;
import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.base.WaitBudget;
import dev.padlock.internal.lease.LeaseClocks;
import dev.padlock.internal.lease.ReportsToLeases;
import dev.padlock.internal.observe.Observing;
import io.netty.util.Timer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
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
 * <p>One owner's acquisitions of one multi lock object take turns ({@link OwnerTurns}): each starts
 * once the owner's earlier one has settled. A round that gives back what it took unlocks by the
 * owner's field, and a component found no longer held (its lease ran out meanwhile) is unlocked
 * too; with two acquisitions of one owner in flight, that unlock could remove the hold the other
 * had just taken on it.
 *
 * <p>Reentrancy, leases and watchdog renewal are the components' own; besides those turns this
 * class keeps no state between calls. Reads combine the components' answers: locked or held when
 * all are, the smallest hold count, the shortest time to live.
 */
public final class MultiLock implements RLock, ReportsToLeases, CallBound {
    /**
     * How long an unbounded acquisition holding its first components waits for each later one, in
     * one round, before it gives back what it took and starts again (Redisson's multi lock waits
     * as long per component).
     */
    static final long ROUND_NANOS_PER_COMPONENT = TimeUnit.MILLISECONDS.toNanos(1_500);

    /** In acquisition order. */
    private final List<RLock> locks;
    private final String name;
    /** The observer of the client that made it; null when none is set. */
    private final @Nullable Observing observing;
    private final EngineClock clock;
    private final Timer timer;
    /** One owner's acquisitions, one after the other: see {@link OwnerTurns}. */
    private final OwnerTurns turns = new OwnerTurns();

    private MultiLock(List<RLock> locks, @Nullable Observing observing, EngineClock clock, Timer timer) {
        this.locks = locks;
        this.clock = clock;
        this.timer = timer;
        this.name = CompositeLocks.name("multi", locks);
        this.observing = observing;
    }

    /**
     * A multi lock over {@code locks}.
     *
     * @throws NullPointerException when {@code locks} or one of them is null
     * @throws IllegalArgumentException when {@code locks} is empty or holds one object twice
     */
    public static RLock of(Timer timer, RLock... locks) {
        return of(null, EngineClock.SYSTEM, timer, locks);
    }

    /**
     * As {@link #of(Timer, RLock...)}, its acquisitions and holds told to {@code observing} when not
     * null, its waits timed by {@code clock}.
     */
    public static RLock of(@Nullable Observing observing, EngineClock clock, Timer timer, RLock... locks) {
        List<RLock> sorted = new ArrayList<>(CompositeLocks.components(locks));
        sorted.sort(Comparator.comparing(RLock::getName));
        return new MultiLock(List.copyOf(sorted), observing, clock, timer);
    }

    /** {@code multi[a,b,c]}: the components' names in acquisition order. */
    @Override
    public String getName() {
        return name;
    }

    @Override
    public long graceNanos() {
        return CompositeLocks.graceNanos(locks);
    }

    @Override
    public String address() {
        return CompositeLocks.address(locks);
    }

    // ---- acquire

    @Override
    public void lock() {
        lock(-1, TimeUnit.MILLISECONDS);
    }

    @Override
    public void lock(long leaseTime, TimeUnit unit) {
        CompositeLocks.lock(this::acquire, leaseTime, unit, name);
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        lockInterruptibly(-1, TimeUnit.MILLISECONDS);
    }

    @Override
    public void lockInterruptibly(long leaseTime, TimeUnit unit) throws InterruptedException {
        CompositeLocks.lockInterruptibly(this::acquire, leaseTime, unit, name);
    }

    @Override
    public boolean tryLock() {
        return CompositeLocks.tryLock(this::acquire, name);
    }

    @Override
    public boolean tryLock(long waitTime, TimeUnit unit) throws InterruptedException {
        return tryLock(waitTime, -1, unit);
    }

    @Override
    public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        return CompositeLocks.tryLock(this::acquire, waitTime, leaseTime, unit, name);
    }

    @Override
    public CompletableFuture<Void> lockAsync(long leaseTime, TimeUnit unit, long threadId) {
        return CompositeLocks.lockAsync(this::acquire, this::unlockAsync, leaseTime, unit, threadId, name);
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync(long waitTime, long leaseTime, TimeUnit unit, long threadId) {
        return CompositeLocks.tryLockAsync(this::acquire, this::unlockAsync, waitTime, leaseTime, unit, threadId, name);
    }

    private PendingAcquire acquire(long waitNanos, long leaseTime, TimeUnit unit, long threadId) {
        long leaseNanos = leaseTime <= 0 ? -1 : unit.toNanos(leaseTime);
        long startNanos = observing == null ? 0 : clock.nanoTime();
        WaitBudget budget = WaitBudget.of(waitNanos, clock);
        PendingAcquire acquisition = turns.start(threadId, budget, timer, () -> {
            MultiLockAcquisition started = new MultiLockAcquisition(locks, budget, clock, leaseNanos, threadId);
            started.next();
            return started;
        }, () -> unlockAsync(threadId));
        return observing == null ? acquisition : observing.started(acquisition, name, "composite:" + name,
                dev.padlock.LockObserver.Kind.MULTI, threadId, waitNanos, startNanos);
    }

    // ---- release

    /**
     * Unlocks every component, also when one fails, then throws the first failure.
     *
     * @throws IllegalMonitorStateException when the calling thread does not hold every component
     */
    @Override
    public void unlock() {
        CompositeLocks.join(unlockAsync(currentThreadId()), "unlock on '" + name + "'");
    }

    @Override
    public CompletableFuture<Void> unlockAsync(long threadId) {
        CompletableFuture<Void> reply = CompositeLocks.bare(CompositeLocks.callAll(locks, lock -> lock.unlockAsync(threadId))
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
        return observing == null ? reply
                : CompositeLocks.bare(observing.releaseComposite(reply, "composite:" + name, threadId));
    }

    /** Force-unlocks every component; whether any was held. */
    @Override
    public boolean forceUnlock() {
        return CompositeLocks.join(forceUnlockAsync(), "forceUnlock on '" + name + "'");
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

    // ---- state reads: the smallest answer of all components

    /** Whether every component is locked, by anyone. */
    @Override
    public boolean isLocked() {
        return CompositeLocks.join(isLockedAsync(), "isLocked on '" + name + "'");
    }

    @Override
    public CompletableFuture<Boolean> isLockedAsync() {
        return CompositeLocks.isLocked(locks, locks.size());
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return isHeldByThread(currentThreadId());
    }

    /** Whether owner {@code threadId} holds every component. */
    @Override
    public boolean isHeldByThread(long threadId) {
        return CompositeLocks.join(getHoldCountAsync(threadId), "isHeldByThread on '" + name + "'") > 0;
    }

    /** The smallest hold count of the calling thread over the components. */
    @Override
    public int getHoldCount() {
        return CompositeLocks.join(getHoldCountAsync(currentThreadId()), "getHoldCount on '" + name + "'");
    }

    @Override
    public CompletableFuture<Integer> getHoldCountAsync(long threadId) {
        return CompositeLocks.holdCount(locks, locks.size(), threadId);
    }

    /** The shortest time to live of the components; {@code -2} when one is not locked. */
    @Override
    public long remainTimeToLive() {
        return CompositeLocks.join(remainTimeToLiveAsync(), "remainTimeToLive on '" + name + "'");
    }

    @Override
    public CompletableFuture<Long> remainTimeToLiveAsync() {
        return CompositeLocks.remainTimeToLive(locks, locks.size());
    }

    /**
     * Not supported.
     *
     * @throws UnsupportedOperationException always: a condition would need a distributed wait set
     */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("a multi lock does not support conditions");
    }

    @Override
    public String toString() {
        return "RLock[" + name + "]";
    }

    @Override
    public List<LeaseClocks> leaseClocks() {
        return CompositeLocks.leaseClocks(locks);
    }

    @Override
    public EngineClock engineClock() {
        return clock;
    }
}
