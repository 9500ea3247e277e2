package dev.padlock.internal.composite;

import static dev.padlock.internal.base.Nulls.castToNonNull;

import dev.padlock.LockObserver;
import dev.padlock.RLock;
import dev.padlock.internal.acquire.PendingAcquire;
import dev.padlock.internal.base.WaitBudget;
import dev.padlock.internal.lease.LeaseMillis;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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
 * <p>Reads answer what a majority agrees on ({@link CompositeLock}); a failed read is reported only
 * when the answer depends on it. An unlock unlocks every component at once, skipping those the
 * owner does not hold; it throws {@link IllegalMonitorStateException} when none was unlocked and a
 * majority says the owner does not hold them. One owner's acquisitions of one red lock of a client
 * take turns ({@link OwnerTurns}).
 */
public final class RedLock extends CompositeLock {
    private static final Logger log = LoggerFactory.getLogger(RedLock.class);

    private RedLock(List<RLock> locks, CompositeServices services) {
        super("red", "red lock", LockObserver.Kind.RED, locks, locks.size() / 2 + 1, services);
    }

    /**
     * A red lock over {@code locks}, each on its own Redis server, of the client whose
     * {@code services} are given: its acquisitions and holds told to its observer when one is set,
     * its rounds timed by its clock and timer.
     *
     * @throws NullPointerException when {@code locks} or one of them is null
     * @throws IllegalArgumentException when {@code locks} is empty or holds one object twice
     */
    public static RLock of(CompositeServices services, RLock... locks) {
        return new RedLock(CompositeLocks.components(locks), services);
    }

    @Override
    PendingAcquire startAcquisition(WaitBudget budget, long leaseTime, TimeUnit unit, long threadId) {
        return RedLockAcquisition.start(locks, quorum, name, log, budget, clock, timer, LeaseMillis.of(leaseTime, unit),
                threadId);
    }

    /** Unlocks every component at once, skipping those the owner does not hold. */
    @Override
    CompletableFuture<Void> release(long threadId) {
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

    /** Whether any component was held; a failure only when fewer than a majority answered. */
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
}
