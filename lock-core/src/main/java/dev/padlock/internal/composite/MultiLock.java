package dev.padlock.internal.composite;

import static dev.padlock.internal.composite.CompositeLocks.call;
import static dev.padlock.internal.composite.CompositeLocks.currentThreadId;

import dev.padlock.RLock;
import dev.padlock.RedisUnavailableException;
import dev.padlock.internal.acquire.PendingAcquire;
import dev.padlock.internal.base.CallBound;
import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.base.WaitBudget;
import dev.padlock.internal.observe.Observing;
import dev.padlock.internal.redis.RedisErrors;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * <p>Reentrancy, leases and watchdog renewal are the components' own; this class keeps no state
 * between calls. Reads combine the components' answers: locked or held when all are, the
 * smallest hold count, the shortest time to live.
 */
public final class MultiLock implements RLock, CallBound {
    private static final Logger log = LoggerFactory.getLogger(MultiLock.class);
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
    private final Observing observing;
    private final EngineClock clock;

    private MultiLock(List<RLock> locks, Observing observing, EngineClock clock) {
        this.locks = locks;
        this.clock = clock;
        this.name = CompositeLocks.name("multi", locks);
        this.observing = observing;
    }

    /**
     * A multi lock over {@code locks}.
     *
     * @throws NullPointerException when {@code locks} or one of them is null
     * @throws IllegalArgumentException when {@code locks} is empty or holds one object twice
     */
    public static RLock of(RLock... locks) {
        return of(null, EngineClock.SYSTEM, locks);
    }

    /**
     * As {@link #of(RLock...)}, its acquisitions and holds told to {@code observing} when not null,
     * its waits timed by {@code clock}.
     */
    public static RLock of(Observing observing, EngineClock clock, RLock... locks) {
        List<RLock> sorted = new ArrayList<>(CompositeLocks.components(locks));
        sorted.sort(Comparator.comparing(RLock::getName));
        return new MultiLock(List.copyOf(sorted), observing, clock);
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
        Acquisition acquisition = new Acquisition(locks, WaitBudget.of(waitNanos, clock), clock, leaseNanos, threadId);
        acquisition.next();
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

    /**
     * One acquisition: the components in order, each after the previous one was acquired, as a
     * chain of future callbacks. {@link #result} may be cancelled at any time; the step then in
     * flight is cancelled and the chain rolls back.
     */
    private static final class Acquisition implements PendingAcquire {
        private final List<RLock> locks;
        private final WaitBudget budget;
        private final EngineClock clock;
        private final long leaseNanos;
        private final long threadId;
        /** When the first component was asked for, this time round. */
        private long firstAskedNanos;
        /** When the first component was held, this time round: an unbounded wait's round starts then. */
        private long firstTakenNanos;
        private final CompletableFuture<Boolean> result = new CompletableFuture<>();
        private final CompletableFuture<Void> settled = new CompletableFuture<>();
        /** How many components, from the first, this call holds; confined to the step running now. */
        private int taken;
        /** The component acquisition in flight; written by the step running now, cancelled by a cancel. */
        private volatile CompletableFuture<?> inFlight;

        Acquisition(List<RLock> locks, WaitBudget budget, EngineClock clock, long leaseNanos, long threadId) {
            this.clock = clock;
            this.locks = locks;
            this.budget = budget;
            this.leaseNanos = leaseNanos;
            this.threadId = threadId;
            result.whenComplete((held, failure) -> {
                CompletableFuture<?> step = inFlight;
                if (result.isCancelled() && step != null) {
                    step.cancel(false);
                }
            });
        }

        @Override
        public CompletableFuture<Boolean> result() {
            return result;
        }

        @Override
        public CompletableFuture<Void> settled() {
            return settled;
        }

        /** Acquires the next component, or completes when all are held. */
        void next() {
            if (result.isDone()) {
                rollBack(null);
                return;
            }
            if (taken == locks.size()) {
                if (locks.size() > 1 && clock.nanoTime() - firstAskedNanos > leaseSlackNanos()) {
                    confirmEarlierComponents();
                } else {
                    held();
                }
                return;
            }
            RLock lock = locks.get(taken);
            if (taken == 0) {
                firstAskedNanos = clock.nanoTime();
            }
            CompletableFuture<?> step;
            if (!budget.forever()) {
                step = call(() -> lock.tryLockAsync(budget.remainingNanos(), leaseNanos, TimeUnit.NANOSECONDS, threadId));
            } else if (taken == 0) {
                step = call(() -> lock.lockAsync(leaseNanos, TimeUnit.NANOSECONDS, threadId));
            } else {
                // holding the earlier ones: wait for the rest a round at most, then give them back and
                // start again, so that holds out of order (a component force-unlocked under an outer
                // hold, say) cannot deadlock two waits for ever
                long roundEndNanos = firstTakenNanos + ROUND_NANOS_PER_COMPONENT * (locks.size() - 1);
                long leftNanos = Math.max(0, roundEndNanos - clock.nanoTime());
                step = call(() -> lock.tryLockAsync(leftNanos, leaseNanos, TimeUnit.NANOSECONDS, threadId));
            }
            inFlight = step;
            if (result.isCancelled()) {
                step.cancel(false);
            }
            step.whenComplete((acquired, failure) -> {
                if (failure != null) {
                    rollBack(result.isCancelled() ? null : RedisErrors.unwrap(failure));
                } else if (Boolean.FALSE.equals(acquired)) {
                    rollBack(null, budget.forever() && !result.isDone() ? this::next : null);
                } else {
                    if (taken == 0) {
                        firstTakenNanos = clock.nanoTime();
                    }
                    taken++;
                    next();
                }
            });
        }

        /** Every component is held: reports it, or gives them back when the call was cancelled meanwhile. */
        private void held() {
            if (result.complete(true)) {
                settled.complete(null);
            } else {
                rollBack(null);
            }
        }

        /** How long taking the components may last before the earlier ones are confirmed: 1 % of a fixed lease, 2 ms at least. */
        private long leaseSlackNanos() {
            return Math.max(TimeUnit.MILLISECONDS.toNanos(2), leaseNanos / 100);
        }

        /**
         * All components are held, but taking them took longer than {@link #leaseSlackNanos}: the
         * earlier ones' leases began that much before the last one's and may since have run out
         * (a fixed lease's end, a watchdog's renewals that failed). Extends each fixed lease to
         * the lease from now, and asks Redis whether each watchdog-held one is still held: held
         * when all still are. When one ran out, gives back the rest and starts again while wait
         * is left.
         */
        private void confirmEarlierComponents() {
            long leaseMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(leaseNanos));
            List<CompletableFuture<Boolean>> extensions = new ArrayList<>();
            for (RLock lock : locks.subList(0, locks.size() - 1)) {
                extensions.add(leaseNanos > 0 && lock instanceof LeaseExtending extending
                        ? call(() -> extending.extendLeaseAsync(leaseMillis, threadId))
                        : call(() -> lock.getHoldCountAsync(threadId)).thenApply(count -> count > 0));
            }
            CompletableFuture<?>[] all = extensions.toArray(CompletableFuture<?>[]::new);
            // nothing to cancel here: a cancel while the extensions run is seen once they answered
            CompletableFuture.allOf(all).whenComplete((ok, failure) -> {
                if (failure != null) {
                    rollBack(result.isCancelled() ? null : RedisErrors.unwrap(failure));
                } else if (extensions.stream().allMatch(CompletableFuture::join)) {
                    held();
                } else if (!result.isDone() && (budget.forever() || budget.remainingNanos() > 0)) {
                    log.debug("'{}': a component's lease ran out while a later one was awaited; starting again",
                            locks.get(0).getName());
                    rollBack(null, this::next);
                } else {
                    rollBack(null);
                }
            });
        }

        /**
         * Unlocks what this call took, last first, then reports: {@code failure} when given,
         * else {@code false}, unless cancelled. A component found no longer held (its lease ran
         * out) needs no roll-back; any other roll-back failure is reported with the outcome.
         */
        private void rollBack(Throwable failure) {
            rollBack(failure, null);
        }

        /** As {@link #rollBack(Throwable)}, then runs {@code again} instead of reporting, unless it failed or was cancelled. */
        private void rollBack(Throwable failure, Runnable again) {
            CompletableFuture<List<Throwable>> chain = CompletableFuture.completedFuture(new ArrayList<>());
            for (int i = taken - 1; i >= 0; i--) {
                RLock lock = locks.get(i);
                chain = chain.thenCompose(problems -> call(() -> lock.unlockAsync(threadId)).handle((ok, error) -> {
                    Throwable cause = error == null ? null : RedisErrors.unwrap(error);
                    if (cause instanceof IllegalMonitorStateException) {
                        log.debug("roll-back: '{}' was no longer held: {}", lock.getName(), cause.getMessage());
                    } else if (cause != null) {
                        problems.add(cause);
                    }
                    return problems;
                }));
            }
            taken = 0;
            chain.whenComplete((problems, ignored) -> {
                if (again != null && problems.isEmpty() && !result.isDone()) {
                    again.run();
                } else {
                    report(failure, problems);
                }
            });
        }

        private void report(Throwable failure, List<Throwable> problems) {
            settled.complete(null);
            if (result.isDone()) {
                for (Throwable problem : problems) {
                    log.warn("could not roll back a cancelled acquisition; the lock is held until its lease ends: {}",
                            problem.toString());
                }
            } else if (failure != null) {
                problems.forEach(failure::addSuppressed);
                result.completeExceptionally(failure);
            } else if (!problems.isEmpty()) {
                Throwable first = problems.get(0);
                problems.subList(1, problems.size()).forEach(first::addSuppressed);
                result.completeExceptionally(first);
            } else {
                result.complete(false);
            }
        }
    }
}
