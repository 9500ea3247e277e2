package dev.padlock.internal.composite;

import dev.padlock.LeaseFactory;
import dev.padlock.LockObserver;
import dev.padlock.RLock;
import dev.padlock.internal.acquire.LateCancels;
import dev.padlock.internal.acquire.PendingAcquire;
import dev.padlock.internal.base.CallBound;
import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.base.Require;
import dev.padlock.internal.base.WaitBudget;
import dev.padlock.internal.lease.LeaseClocks;
import dev.padlock.internal.lease.LeaseMillis;
import dev.padlock.internal.lease.Leases;
import dev.padlock.internal.lease.ReportsToLeases;
import dev.padlock.internal.observe.Observing;
import dev.padlock.internal.redis.RedisErrors;
import io.netty.util.Timer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * What {@link MultiLock} and {@link RedLock} share: the {@link RLock} facade over an asynchronous
 * core, its blocking waits, the owner's turns, the observer, and the reads that rank the
 * components' answers. A kind gives how an acquisition runs ({@link #startAcquisition}), how an
 * owner's holds are given back ({@link #release}) and how a force unlock is answered, and how many
 * components must agree ({@code quorum}: all of them, or a majority).
 *
 * <h2>Implementation notes</h2>
 * Every acquisition starts in {@link #acquire}: it takes its turn among the same owner's
 * acquisitions of the same composite of this client ({@link OwnerTurns}, keyed by the kind and the
 * components' names, so that two objects for one composite take turns too), then runs the kind's
 * acquisition on one {@link WaitBudget} timed by the client's clock, and is told to the observer
 * when one is set. A hold that lands as its caller cancelled is given back through
 * {@link #release}, not {@link #unlockAsync}: the observer never saw it held, and must not count
 * its give-back against another hold of the owner.
 *
 * <p>The components bound their own Redis calls, so every future combined here completes within
 * the components' bounds; the blocking waits add no timeout of their own.
 */
abstract class CompositeLock implements RLock, ReportsToLeases, CallBound {
    /** A wait without bound. */
    static final long FOREVER = Long.MAX_VALUE;

    /** In acquisition order. */
    final List<RLock> locks;
    /** {@code kind[a,b,c]}: the kind and the components' names in acquisition order. */
    final String name;
    /** How many components must agree for the composite to be held, locked or counted. */
    final int quorum;
    /** The observer of the client that made it; null when none is set. */
    final @Nullable Observing observing;
    final EngineClock clock;
    final Timer timer;
    private final OwnerTurns turns;
    /** This composite among the client's: its kind and its components' names, sorted. */
    private final String identity;
    private final LockObserver.Kind kind;
    /** {@code "multi lock"}, {@code "red lock"}: for messages. */
    private final String noun;

    CompositeLock(String kindName, String noun, LockObserver.Kind kind, List<RLock> locks, int quorum,
            CompositeServices services) {
        this.locks = locks;
        this.name = CompositeLocks.name(kindName, locks);
        this.noun = noun;
        this.kind = kind;
        this.quorum = quorum;
        this.observing = services.observing();
        this.clock = services.clock();
        this.timer = services.timer();
        this.turns = services.turns();
        List<RLock> sorted = new ArrayList<>(locks);
        sorted.sort(Comparator.comparing(RLock::getName));
        this.identity = CompositeLocks.name(kindName, sorted);
    }

    /** Starts one acquisition for {@code threadId} on {@code budget}, its turn come. */
    abstract PendingAcquire startAcquisition(WaitBudget budget, long leaseTime, TimeUnit unit, long threadId);

    /** Gives back {@code threadId}'s hold on every component, unobserved: {@link #unlockAsync} without the observer. */
    abstract CompletableFuture<Void> release(long threadId);

    @Override
    public final String getName() {
        return name;
    }

    @Override
    public final LeaseFactory leases() {
        return Leases.of(this);
    }

    /** The longest grace of the components (see {@link CallBound}); unknown: as long as a wait without bound. */
    @Override
    public final long graceNanos() {
        long grace = 0;
        for (RLock lock : locks) {
            if (!(lock instanceof CallBound bound)) {
                return FOREVER;
            }
            grace = Math.max(grace, bound.graceNanos());
        }
        return grace;
    }

    /** The components' distinct addresses, for messages. */
    @Override
    public final String address() {
        return locks.stream().map(lock -> lock instanceof CallBound bound ? bound.address() : "?")
                .distinct().collect(java.util.stream.Collectors.joining(","));
    }

    // ---- acquire

    @Override
    public final void lock() {
        lock(LeaseMillis.WATCHDOG, TimeUnit.MILLISECONDS);
    }

    @Override
    public final void lock(long leaseTime, TimeUnit unit) {
        Require.leaseTime(leaseTime, unit);
        join(acquire(FOREVER, leaseTime, unit, currentThreadId()).reported(), "lock on '" + name + "'");
    }

    @Override
    public final void lockInterruptibly() throws InterruptedException {
        lockInterruptibly(LeaseMillis.WATCHDOG, TimeUnit.MILLISECONDS);
    }

    @Override
    public final void lockInterruptibly(long leaseTime, TimeUnit unit) throws InterruptedException {
        Require.leaseTime(leaseTime, unit);
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        await(acquire(FOREVER, leaseTime, unit, currentThreadId()), "lockInterruptibly on '" + name + "'");
    }

    /** One attempt, watchdog lease; an interrupt is kept. */
    @Override
    public final boolean tryLock() {
        return join(acquire(0, LeaseMillis.WATCHDOG, TimeUnit.MILLISECONDS, currentThreadId()).reported(),
                "tryLock on '" + name + "'");
    }

    @Override
    public final boolean tryLock(long waitTime, TimeUnit unit) throws InterruptedException {
        return tryLock(waitTime, LeaseMillis.WATCHDOG, unit);
    }

    @Override
    public final boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        Require.leaseTime(leaseTime, unit);
        Require.waitTime(waitTime);
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        return await(acquire(unit.toNanos(waitTime), leaseTime, unit, currentThreadId()), "tryLock on '" + name + "'");
    }

    /**
     * Cancelling the future cancels the acquisition (or, too late, gives the composite back:
     * {@link LateCancels}).
     */
    @Override
    public final CompletableFuture<Void> lockAsync(long leaseTime, TimeUnit unit, long threadId) {
        Require.leaseTime(leaseTime, unit);
        return linked(acquire(FOREVER, leaseTime, unit, threadId), threadId, held -> null);
    }

    /** As {@link #lockAsync} for cancelling. */
    @Override
    public final CompletableFuture<Boolean> tryLockAsync(long waitTime, long leaseTime, TimeUnit unit, long threadId) {
        Require.leaseTime(leaseTime, unit);
        Require.waitTime(waitTime);
        return linked(acquire(unit.toNanos(waitTime), leaseTime, unit, threadId), threadId, held -> held);
    }

    /** Starts an acquisition, once the owner's earlier one of this composite settled; {@code waitNanos} {@link #FOREVER} for no bound. */
    private PendingAcquire acquire(long waitNanos, long leaseTime, TimeUnit unit, long threadId) {
        long startNanos = observing == null ? 0 : clock.nanoTime();
        WaitBudget budget = WaitBudget.of(waitNanos, clock);
        PendingAcquire acquisition = turns.start(identity, threadId, budget, timer,
                () -> startAcquisition(budget, leaseTime, unit, threadId), () -> release(threadId));
        return observing == null ? acquisition : observing.started(acquisition, name, localKey(), kind, threadId,
                waitNanos, startNanos);
    }

    /**
     * As {@link CompositeLocks#bare} over the acquisition's {@linkplain PendingAcquire#reported()
     * reported} result, mapped; cancelling the returned future cancels the acquisition, or gives the
     * composite back when the cancel came too late ({@link LateCancels}).
     */
    private <R> CompletableFuture<R> linked(PendingAcquire acquisition, long threadId, Function<Boolean, R> map) {
        CompletableFuture<R> out = CompositeLocks.bare(acquisition.reported().thenApply(map));
        LateCancels.link(out, acquisition, () -> unlockAsync(threadId), () -> name + " of owner " + threadId);
        return out;
    }

    /** The key the observer knows this composite's holds by. */
    private String localKey() {
        return "composite:" + name;
    }

    // ---- release

    /** Unlocks as the kind says (see the class notes), for the calling thread. */
    @Override
    public final void unlock() {
        join(unlockAsync(currentThreadId()), "unlock on '" + name + "'");
    }

    @Override
    public final CompletableFuture<Void> unlockAsync(long threadId) {
        CompletableFuture<Void> reply = release(threadId);
        return observing == null ? reply
                : CompositeLocks.bare(observing.releaseComposite(reply, localKey(), threadId));
    }

    /** Force-unlocks every component; whether any was held. */
    @Override
    public final boolean forceUnlock() {
        return join(forceUnlockAsync(), "forceUnlock on '" + name + "'");
    }

    // ---- state reads: the answer at least {@code quorum} components give

    /** Whether at least {@code quorum} components are locked, by anyone. */
    @Override
    public final boolean isLocked() {
        return join(isLockedAsync(), "isLocked on '" + name + "'");
    }

    @Override
    public final CompletableFuture<Boolean> isLockedAsync() {
        return CompositeLocks.isLocked(locks, quorum);
    }

    @Override
    public final boolean isHeldByCurrentThread() {
        return isHeldByThread(currentThreadId());
    }

    /** Whether owner {@code threadId} holds at least {@code quorum} components. */
    @Override
    public final boolean isHeldByThread(long threadId) {
        return join(getHoldCountAsync(threadId), "isHeldByThread on '" + name + "'") > 0;
    }

    /** The largest hold count of the calling thread that at least {@code quorum} components have. */
    @Override
    public final int getHoldCount() {
        return join(getHoldCountAsync(currentThreadId()), "getHoldCount on '" + name + "'");
    }

    @Override
    public final CompletableFuture<Integer> getHoldCountAsync(long threadId) {
        return CompositeLocks.holdCount(locks, quorum, threadId);
    }

    /**
     * How long at least {@code quorum} components stay locked; {@code -2} when fewer are
     * locked, {@code -1} when they have no expiry.
     */
    @Override
    public final long remainTimeToLive() {
        return join(remainTimeToLiveAsync(), "remainTimeToLive on '" + name + "'");
    }

    @Override
    public final CompletableFuture<Long> remainTimeToLiveAsync() {
        return CompositeLocks.remainTimeToLive(locks, quorum);
    }

    /**
     * Not supported.
     *
     * @throws UnsupportedOperationException always: a condition would need a distributed wait set
     */
    @Override
    public final Condition newCondition() {
        throw new UnsupportedOperationException("a " + noun + " does not support conditions");
    }

    @Override
    public final String toString() {
        return "RLock[" + name + "]";
    }

    /** The lease registries of the components' clients, each once (see {@link ReportsToLeases}). */
    @Override
    public final List<LeaseClocks> leaseClocks() {
        List<LeaseClocks> all = new ArrayList<>();
        for (RLock lock : locks) {
            if (lock instanceof ReportsToLeases reporting) {
                for (LeaseClocks clocks : reporting.leaseClocks()) {
                    if (all.stream().noneMatch(known -> known == clocks)) {
                        all.add(clocks);
                    }
                }
            }
        }
        return all;
    }

    @Override
    public final EngineClock engineClock() {
        return clock;
    }

    static long currentThreadId() {
        return Thread.currentThread().getId();
    }

    // ---- blocking waits

    /**
     * Waits for an acquisition. On interrupt it is cancelled and its roll-back awaited, then
     * {@link InterruptedException} is thrown; when it had already succeeded, it is returned as
     * held and the interrupt is kept.
     */
    private static boolean await(PendingAcquire acquisition, String operation) throws InterruptedException {
        CompletableFuture<Boolean> result = acquisition.result();
        try {
            return acquisition.reported().get();
        } catch (ExecutionException e) {
            throw rethrow(RedisErrors.causeOf(e), operation);
        } catch (InterruptedException e) {
            if (acquisition instanceof Observing.ObservedAcquire observed) {
                observed.mark(LockObserver.Outcome.INTERRUPTED);
            }
            if (!result.cancel(false) && !result.isCompletedExceptionally() && result.join()) {
                Thread.currentThread().interrupt();
                return true;
            }
            awaitSettled(acquisition.settled());
            throw e;
        }
    }

    /**
     * Waits until a cancelled acquisition has rolled back. A further interrupt is not re-asserted:
     * the {@link InterruptedException} thrown next reports it.
     */
    private static void awaitSettled(CompletableFuture<Void> settled) {
        while (true) {
            try {
                settled.get();
                return;
            } catch (InterruptedException e) {
                // keep waiting: the caller throws InterruptedException next
            } catch (ExecutionException | CancellationException e) {
                return;
            }
        }
    }

    /** Waits for a call's answer or an acquisition; an interrupt is kept and re-asserted on return. */
    static <T> T join(CompletableFuture<T> future, String operation) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return future.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw rethrow(RedisErrors.causeOf(e), operation);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A failure to throw on the caller's thread: see {@link RedisErrors#forCaller}. */
    private static RuntimeException rethrow(Throwable failure, String operation) {
        RuntimeException mapped = RedisErrors.forCaller(failure, operation);
        return mapped != null ? mapped : CompositeLocks.unchecked(RedisErrors.unwrap(failure));
    }
}
