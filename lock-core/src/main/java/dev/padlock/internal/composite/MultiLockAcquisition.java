package dev.padlock.internal.composite;

import static dev.padlock.internal.composite.CompositeLocks.call;

import dev.padlock.RLock;
import dev.padlock.internal.acquire.PendingAcquire;
import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.base.WaitBudget;
import dev.padlock.internal.lease.LeaseExtending;
import dev.padlock.internal.lease.LeaseMillis;
import dev.padlock.internal.redis.RedisErrors;
import io.netty.util.Timer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquisition: each round first as one call over every component when they can take it
 * ({@link MultiBatch}), else (or when that call did not take them all) the components in order,
 * each after the previous one was acquired, as a chain of future callbacks. {@link #result} may be
 * cancelled at any time; the step then in flight is cancelled and the chain rolls back (a one-call
 * round that lands after the cancel is given back by one call).
 */
final class MultiLockAcquisition implements PendingAcquire {
    private static final Logger log = LoggerFactory.getLogger(MultiLock.class);
    /**
     * How long a re-entry by one call waits before it tries again when a component was not taken
     * (lost behind the owner's back and held by another, or a reply lost): it cannot go one by one,
     * which the views would count as holds of their own (see {@link MultiBatch}).
     */
    static final long BATCH_REENTRY_RETRY_MILLIS = 100;
    private final List<RLock> locks;
    private final WaitBudget budget;
    private final EngineClock clock;
    private final Timer timer;
    /** The components' lease: fixed, or {@link LeaseMillis#WATCHDOG}. */
    private final long leaseMillis;
    /** {@link #leaseMillis} in the unit of the components' waits, as they are asked. */
    private final long leaseNanos;
    private final long threadId;
    /** The one-call path over the components; null when they cannot take it. */
    private final @Nullable MultiBatch batch;
    /** Whether this round tried the one-call path already; confined to the step running now. */
    private boolean batchTried;
    /** Whether this round's holds came by the one-call path, which gives them back; confined as above. */
    private boolean byBatch;
    /** When the first component was asked for, this time round. */
    private long firstAskedNanos;
    /** When the first component was held, this time round: an unbounded wait's round starts then. */
    private long firstTakenNanos;
    private final CompletableFuture<Boolean> result = new CompletableFuture<>();
    private final CompletableFuture<Void> settled = new CompletableFuture<>();
    /** How many components, from the first, this call holds; confined to the step running now. */
    private int taken;
    /** The component acquisition in flight; written by the step running now, cancelled by a cancel. */
    private volatile @Nullable CompletableFuture<?> inFlight;

    MultiLockAcquisition(List<RLock> locks, @Nullable MultiBatch batch, WaitBudget budget, EngineClock clock,
            Timer timer, long leaseMillis, long threadId) {
        this.batch = batch;
        this.clock = clock;
        this.timer = timer;
        this.locks = locks;
        this.budget = budget;
        this.leaseMillis = leaseMillis;
        this.leaseNanos = LeaseMillis.isWatchdog(leaseMillis) ? LeaseMillis.WATCHDOG
                : TimeUnit.MILLISECONDS.toNanos(leaseMillis);
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
        MultiBatch one = batch;
        if (taken == 0 && one != null && !batchTried) {
            batchTried = true;
            if (one.mayAcquire(threadId)) {
                acquireByBatch(one);
                return;
            }
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
            long roundEndNanos = firstTakenNanos + MultiLock.ROUND_NANOS_PER_COMPONENT * (locks.size() - 1);
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

    /**
     * This round as one call over every component: held, it is reported as a round that took them
     * all at once (their leases began together: nothing to confirm); not taken, the round goes on
     * one by one, unless it is a single attempt and a component was held by another owner (the
     * answer one by one would give). The call is not cancelled with the result: what lands is given
     * back by {@link #held()}'s roll-back.
     */
    private void acquireByBatch(MultiBatch one) {
        firstAskedNanos = clock.nanoTime();
        long waitNanos = budget.forever() ? WaitBudget.FOREVER : budget.oneAttempt() ? 0 : budget.remainingNanos();
        boolean reentry = one.holdsByBatch(threadId);
        one.acquire(threadId, leaseMillis, waitNanos).whenComplete((outcome, failure) -> {
            if (failure != null) {
                rollBack(result.isCancelled() ? null : RedisErrors.unwrap(failure));
            } else if (outcome == MultiBatch.Taken.ALL) {
                firstTakenNanos = clock.nanoTime();
                taken = locks.size();
                byBatch = true;
                held();
            } else if (outcome == MultiBatch.Taken.HELD_ELSEWHERE && budget.oneAttempt()) {
                rollBack(null); // one attempt, and Redis said a component is held by another owner
            } else if (!reentry) {
                next();
            } else if (!result.isDone() && (budget.forever() || budget.remainingNanos() > 0)) {
                long pauseNanos = TimeUnit.MILLISECONDS.toNanos(BATCH_REENTRY_RETRY_MILLIS);
                try {
                    timer.newTimeout(timeout -> {
                        batchTried = false;
                        next();
                    }, budget.forever() ? pauseNanos : Math.min(pauseNanos, budget.remainingNanos()), TimeUnit.NANOSECONDS);
                } catch (RuntimeException e) {
                    rollBack(e); // the client's timer stopped: it is closing
                }
            } else {
                rollBack(null);
            }
        });
    }

    /**
     * Every component is held: reports it, or gives them back when the call was cancelled meanwhile,
     * or when a component's loss was told since this round began (see {@link ToldLosses}), then
     * starts again while wait is left.
     */
    private void held() {
        if (CompositeLocks.toldLostSince(locks, threadId, firstAskedNanos)) {
            log.debug("'{}': a component's loss was told while the others were taken; starting again",
                    locks.get(0).getName());
            rollBack(null, !result.isDone() && (budget.forever() || budget.remainingNanos() > 0) ? this::next : null);
        } else if (result.complete(true)) {
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
        List<CompletableFuture<Boolean>> extensions = new ArrayList<>();
        for (RLock lock : locks.subList(0, locks.size() - 1)) {
            extensions.add(!LeaseMillis.isWatchdog(leaseMillis) && lock instanceof LeaseExtending extending
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
    private void rollBack(@Nullable Throwable failure) {
        rollBack(failure, null);
    }

    /** As {@link #rollBack(Throwable)}, then runs {@code again} instead of reporting, unless it failed or was cancelled. */
    private void rollBack(@Nullable Throwable failure, @Nullable Runnable again) {
        CompletableFuture<List<Throwable>> chain = CompletableFuture.completedFuture(new ArrayList<>());
        MultiBatch one = batch;
        if (byBatch && one != null) {
            chain = CompositeLocks.call(() -> one.release(threadId)).handle((outcomes, error) -> {
                List<Throwable> problems = new ArrayList<>();
                if (error != null) {
                    problems.add(RedisErrors.unwrap(error));
                } else if (one.firstNotHeld(outcomes, threadId) != null) {
                    log.debug("roll-back: {}", one.firstNotHeld(outcomes, threadId));
                }
                return problems;
            });
            taken = 0;
        }
        byBatch = false;
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
                batchTried = false; // a new round
                again.run();
            } else {
                report(failure, problems);
            }
        });
    }

    private void report(@Nullable Throwable failure, List<Throwable> problems) {
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
