package dev.padlock.internal.composite;

import static dev.padlock.internal.base.Nulls.castToNonNull;
import static dev.padlock.internal.composite.CompositeLocks.currentThreadId;

import dev.padlock.RLock;
import dev.padlock.internal.acquire.PendingAcquire;
import dev.padlock.internal.base.CallBound;
import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.base.WaitBudget;
import dev.padlock.internal.lease.LeaseClocks;
import dev.padlock.internal.lease.ReportsToLeases;
import dev.padlock.internal.observe.Observing;
import io.netty.util.Timer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Redlock algorithm over component locks on independent Redis servers
 * ({@link dev.padlock.LockClient#getRedLock}): held when a majority of them was acquired within
 * the validity time. The facade: an acquisition runs in rounds in {@link RedLockAcquisition},
 * whose implementation notes give the protocol.
 *
 * <p>Reads answer what a majority agrees on; a failed read is reported only when the answer
 * depends on it.
 */
public final class RedLock implements RLock, ReportsToLeases, CallBound {
    private static final Logger log = LoggerFactory.getLogger(RedLock.class);

    private final List<RLock> locks;
    private final int quorum;
    private final String name;
    /** The observer of the client that made it; null when none is set. */
    private final @Nullable Observing observing;
    private final EngineClock clock;
    private final Timer timer;
    /** One owner's acquisitions, one after the other: see {@link OwnerTurns}. */
    private final OwnerTurns turns = new OwnerTurns();

    private RedLock(List<RLock> locks, @Nullable Observing observing, EngineClock clock, Timer timer) {
        this.locks = locks;
        this.clock = clock;
        this.timer = timer;
        this.quorum = locks.size() / 2 + 1;
        this.name = CompositeLocks.name("red", locks);
        this.observing = observing;
    }

    /**
     * A red lock over {@code locks}, each on its own Redis server.
     *
     * @throws NullPointerException when {@code locks} or one of them is null
     * @throws IllegalArgumentException when {@code locks} is empty or holds one object twice
     */
    public static RLock of(Timer timer, RLock... locks) {
        return of(null, EngineClock.SYSTEM, timer, locks);
    }

    /**
     * As {@link #of(Timer, RLock...)}, its acquisitions and holds told to {@code observing} when not
     * null, its rounds timed by {@code clock}.
     */
    public static RLock of(@Nullable Observing observing, EngineClock clock, Timer timer, RLock... locks) {
        return new RedLock(CompositeLocks.components(locks), observing, clock, timer);
    }

    /** {@code red[a,b,c]}: the components' names in the given order. */
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
        long startNanos = observing == null ? 0 : clock.nanoTime();
        WaitBudget budget = WaitBudget.of(waitNanos, clock);
        long leaseMillis = leaseTime <= 0 ? -1 : Math.max(1, unit.toMillis(leaseTime));
        PendingAcquire acquisition = turns.start(threadId, budget, timer,
                () -> RedLockAcquisition.start(locks, quorum, name, log, budget, clock, timer, leaseMillis, threadId),
                () -> unlockAll(threadId));
        return observing == null ? acquisition : observing.started(acquisition, name, "composite:" + name,
                dev.padlock.LockObserver.Kind.RED, threadId, waitNanos, startNanos);
    }

    // ---- release

    /**
     * Unlocks every component at once, skipping those the calling thread does not hold.
     *
     * @throws IllegalMonitorStateException when none was unlocked and a majority of the
     *     components says the calling thread does not hold them
     */
    @Override
    public void unlock() {
        CompositeLocks.join(unlockAsync(currentThreadId()), "unlock on '" + name + "'");
    }

    @Override
    public CompletableFuture<Void> unlockAsync(long threadId) {
        CompletableFuture<Void> reply = unlockAll(threadId);
        return observing == null ? reply
                : CompositeLocks.bare(observing.releaseComposite(reply, "composite:" + name, threadId));
    }

    private CompletableFuture<Void> unlockAll(long threadId) {
        return CompositeLocks.bare(CompositeLocks.callAll(locks, lock -> lock.unlockAsync(threadId)).thenApply(outcomes -> {
            long unlocked = outcomes.stream().filter(outcome -> !outcome.failed()).count();
            long notHeld = outcomes.stream().filter(outcome -> outcome.failure() instanceof IllegalMonitorStateException).count();
            List<CompositeLocks.Outcome<Void>> problems = outcomes.stream()
                    .filter(outcome -> outcome.failed() && !(outcome.failure() instanceof IllegalMonitorStateException))
                    .collect(Collectors.toList());
            if (unlocked > 0) {
                problems.forEach(problem -> log.warn("unlock of red lock '{}': a component failed and, if it was held, "
                        + "stays locked until its lease ends: {}", name, castToNonNull(problem.failure()).toString()));
                return null;
            }
            if (notHeld < quorum) {
                throw CompositeLocks.firstFailure(problems);
            }
            IllegalMonitorStateException e = new IllegalMonitorStateException("red lock '" + name + "' is not held by owner "
                    + threadId + ": " + notHeld + " of " + locks.size() + " locks say so (never acquired, already "
                    + "unlocked, or the leases ran out)");
            problems.forEach(problem -> e.addSuppressed(problem.failure()));
            throw e;
        }));
    }

    /** Force-unlocks every component; whether any was held. */
    @Override
    public boolean forceUnlock() {
        return CompositeLocks.join(forceUnlockAsync(), "forceUnlock on '" + name + "'");
    }

    @Override
    public CompletableFuture<Boolean> forceUnlockAsync() {
        return CompositeLocks.bare(CompositeLocks.callAll(locks, RLock::forceUnlockAsync).thenApply(outcomes -> {
            long answered = outcomes.stream().filter(outcome -> !outcome.failed()).count();
            if (outcomes.stream().anyMatch(outcome -> !outcome.failed() && outcome.value())) {
                return true;
            }
            if (answered >= quorum) {
                return false; // a lock held by a majority would have shown on one of these
            }
            throw CompositeLocks.firstFailure(outcomes);
        }));
    }

    // ---- state reads: what a majority agrees on

    /** Whether a majority of the components is locked, by anyone. */
    @Override
    public boolean isLocked() {
        return CompositeLocks.join(isLockedAsync(), "isLocked on '" + name + "'");
    }

    @Override
    public CompletableFuture<Boolean> isLockedAsync() {
        return CompositeLocks.isLocked(locks, quorum);
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return isHeldByThread(currentThreadId());
    }

    /** Whether owner {@code threadId} holds a majority of the components. */
    @Override
    public boolean isHeldByThread(long threadId) {
        return CompositeLocks.join(getHoldCountAsync(threadId), "isHeldByThread on '" + name + "'") > 0;
    }

    /** The largest hold count that a majority of the components has for the calling thread. */
    @Override
    public int getHoldCount() {
        return CompositeLocks.join(getHoldCountAsync(currentThreadId()), "getHoldCount on '" + name + "'");
    }

    @Override
    public CompletableFuture<Integer> getHoldCountAsync(long threadId) {
        return CompositeLocks.holdCount(locks, quorum, threadId);
    }

    /**
     * How long a majority of the components stays locked: the time to live that a majority has
     * at least; {@code -2} when fewer than a majority is locked.
     */
    @Override
    public long remainTimeToLive() {
        return CompositeLocks.join(remainTimeToLiveAsync(), "remainTimeToLive on '" + name + "'");
    }

    @Override
    public CompletableFuture<Long> remainTimeToLiveAsync() {
        return CompositeLocks.remainTimeToLive(locks, quorum);
    }

    /**
     * Not supported.
     *
     * @throws UnsupportedOperationException always: a condition would need a distributed wait set
     */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("a red lock does not support conditions");
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
