package dev.padlock.internal.composite;

import static java.util.Objects.requireNonNull;

import dev.padlock.PadlockException;
import dev.padlock.RLock;
import dev.padlock.internal.acquire.LateCancels;
import dev.padlock.internal.acquire.PendingAcquire;
import dev.padlock.internal.base.CallBound;
import dev.padlock.internal.base.Require;
import dev.padlock.internal.lease.LeaseClocks;
import dev.padlock.internal.lease.ReportsToLeases;
import dev.padlock.internal.observe.Observing;
import dev.padlock.internal.redis.RedisErrors;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * What {@link MultiLock} and {@link RedLock} share: checking their component locks, calling and
 * reading all components together, and the acquire methods of {@link RLock} over their
 * asynchronous core, with the blocking waits on it.
 *
 * <p>The components bound their own Redis calls, so every future combined here completes within
 * the components' bounds; the blocking waits add no timeout of their own.
 */
final class CompositeLocks {
    private CompositeLocks() {
    }

    /** The result of one component call: a value, or the failure (unwrapped). */
    record Outcome<T>(T value, @Nullable Throwable failure) {
        boolean failed() {
            return failure != null;
        }
    }

    /**
     * The components as an immutable list, in the given order.
     *
     * @throws NullPointerException when {@code locks} or one of them is null
     * @throws IllegalArgumentException when {@code locks} is empty or holds one object twice
     */
    static List<RLock> components(RLock[] locks) {
        requireNonNull(locks, "locks");
        Require.argument(locks.length > 0, "locks must not be empty");
        Set<RLock> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int i = 0; i < locks.length; i++) {
            requireNonNull(locks[i], "locks[" + i + "]");
            Require.argument(seen.add(locks[i]), "locks[%d] ('%s') is given twice", i, locks[i].getName());
        }
        return List.of(locks);
    }

    /** {@code kind[a,b,c]} over the components' names. */
    static String name(String kind, List<RLock> locks) {
        return locks.stream().map(RLock::getName).collect(Collectors.joining(",", kind + "[", "]"));
    }

    static long currentThreadId() {
        return Thread.currentThread().getId();
    }

    /** {@code call}'s future; an exception it throws at the call becomes a failed future. */
    static <T> CompletableFuture<T> call(Supplier<CompletableFuture<T>> call) {
        try {
            return call.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Calls {@code call} on every lock at once; completes, never exceptionally, when all have answered. */
    static <T> CompletableFuture<List<Outcome<T>>> callAll(List<RLock> locks,
            Function<RLock, CompletableFuture<T>> call) {
        List<CompletableFuture<Outcome<T>>> outcomes = new ArrayList<>(locks.size());
        for (RLock lock : locks) {
            outcomes.add(call(() -> call.apply(lock)).handle((value, failure) ->
                    new Outcome<>(value, failure == null ? null : RedisErrors.unwrap(failure))));
        }
        return CompletableFuture.allOf(outcomes.toArray(CompletableFuture<?>[]::new))
                .thenApply(ignored -> outcomes.stream().map(CompletableFuture::join).collect(Collectors.toList()));
    }

    /**
     * The {@code k}-th largest (1-based) of the values {@code read} gives for each lock: with
     * {@code k = n} the smallest (true of all), with {@code k = n/2+1} what a majority agrees on.
     * A failed read is unknown. When the answer depends on it, the future fails with the first
     * failure, or, with {@code lowerBound}, gives the answer that counts failed reads as the
     * lowest value, provided that at least {@code k} reads answered.
     */
    private static CompletableFuture<Long> rank(List<RLock> locks, int k, boolean lowerBound,
            Function<RLock, CompletableFuture<Long>> read) {
        return callAll(locks, read).thenApply(outcomes -> {
            List<Long> low = new ArrayList<>();
            List<Long> high = new ArrayList<>();
            for (Outcome<Long> outcome : outcomes) {
                low.add(outcome.failed() ? Long.MIN_VALUE : outcome.value());
                high.add(outcome.failed() ? Long.MAX_VALUE : outcome.value());
            }
            low.sort(Collections.reverseOrder());
            high.sort(Collections.reverseOrder());
            long answer = low.get(k - 1);
            if (answer == high.get(k - 1) || (lowerBound && answer != Long.MIN_VALUE)) {
                return answer;
            }
            throw firstFailure(outcomes);
        });
    }

    /**
     * The first failure among {@code outcomes}, the others added to it as suppressed.
     *
     * @throws IllegalArgumentException when none failed
     */
    static RuntimeException firstFailure(List<? extends Outcome<?>> outcomes) {
        Throwable first = null;
        for (Outcome<?> outcome : outcomes) {
            if (outcome.failed()) {
                if (first == null) {
                    first = outcome.failure();
                } else if (outcome.failure() != first) {
                    first.addSuppressed(outcome.failure());
                }
            }
        }
        return unchecked(Require.present(first, "no outcome failed"));
    }

    private static RuntimeException unchecked(Throwable failure) {
        if (failure instanceof RuntimeException) {
            return (RuntimeException) failure;
        }
        if (failure instanceof Error) {
            throw (Error) failure;
        }
        return new PadlockException(failure.toString(), failure);
    }

    /**
     * A future completed like {@code source} but holding a bare exception (not a
     * {@code CompletionException}), as callers of the asynchronous API expect.
     */
    static <T> CompletableFuture<T> bare(CompletableFuture<T> source) {
        CompletableFuture<T> out = new CompletableFuture<>();
        source.whenComplete((value, failure) -> {
            if (failure != null) {
                out.completeExceptionally(RedisErrors.unwrap(failure));
            } else {
                out.complete(value);
            }
        });
        return out;
    }

    /**
     * As {@link #bare} over the acquisition's {@linkplain PendingAcquire#reported() reported}
     * result, mapped; cancelling the returned future cancels the acquisition, or gives the composite
     * back through {@code unlocker} when the cancel came too late ({@link LateCancels}).
     */
    private static <R> CompletableFuture<R> linked(PendingAcquire acquisition, Unlocker unlocker, long threadId,
            String name, Function<Boolean, R> map) {
        CompletableFuture<R> out = bare(acquisition.reported().thenApply(map));
        LateCancels.link(out, acquisition, () -> unlocker.unlock(threadId), () -> name + " of owner " + threadId);
        return out;
    }

    /** Unlocks a composite for one owner: its {@code unlockAsync}. */
    @FunctionalInterface
    interface Unlocker {
        CompletableFuture<Void> unlock(long threadId);
    }

    // ---- the bound of a composite's calls: its components' longest

    /** The longest grace of {@code locks} (see {@link CallBound}); unknown: as long as a wait without bound. */
    static long graceNanos(List<RLock> locks) {
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
    static String address(List<RLock> locks) {
        return locks.stream().map(lock -> lock instanceof CallBound bound ? bound.address() : "?")
                .distinct().collect(java.util.stream.Collectors.joining(","));
    }

    // ---- the acquire methods of RLock, over a composite's asynchronous core

    /** A wait without bound. */
    static final long FOREVER = Long.MAX_VALUE;

    /** Starts an acquisition of a composite lock; {@code waitNanos} {@link #FOREVER} for no bound. */
    @FunctionalInterface
    interface Acquirer {
        PendingAcquire acquire(long waitNanos, long leaseTime, TimeUnit unit, long threadId);
    }

    /** {@link RLock#lock(long, TimeUnit)}. */
    static void lock(Acquirer acquirer, long leaseTime, TimeUnit unit, String name) {
        Require.leaseTime(leaseTime, unit);
        join(acquirer.acquire(FOREVER, leaseTime, unit, currentThreadId()).reported(), "lock on '" + name + "'");
    }

    /** {@link RLock#lockInterruptibly(long, TimeUnit)}. */
    static void lockInterruptibly(Acquirer acquirer, long leaseTime, TimeUnit unit, String name)
            throws InterruptedException {
        Require.leaseTime(leaseTime, unit);
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        await(acquirer.acquire(FOREVER, leaseTime, unit, currentThreadId()), "lockInterruptibly on '" + name + "'");
    }

    /** {@link RLock#tryLock()}: one attempt, watchdog lease; an interrupt is kept. */
    static boolean tryLock(Acquirer acquirer, String name) {
        return join(acquirer.acquire(0, -1, TimeUnit.MILLISECONDS, currentThreadId()).reported(),
                "tryLock on '" + name + "'");
    }

    /** {@link RLock#tryLock(long, long, TimeUnit)}. */
    static boolean tryLock(Acquirer acquirer, long waitTime, long leaseTime, TimeUnit unit, String name)
            throws InterruptedException {
        Require.leaseTime(leaseTime, unit);
        Require.waitTime(waitTime);
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        return await(acquirer.acquire(unit.toNanos(waitTime), leaseTime, unit, currentThreadId()),
                "tryLock on '" + name + "'");
    }

    /**
     * {@link RLock#lockAsync}: cancelling the future cancels the acquisition (or, too late, gives
     * the composite back through {@code unlocker}).
     */
    static CompletableFuture<Void> lockAsync(Acquirer acquirer, Unlocker unlocker, long leaseTime, TimeUnit unit,
            long threadId, String name) {
        Require.leaseTime(leaseTime, unit);
        return linked(acquirer.acquire(FOREVER, leaseTime, unit, threadId), unlocker, threadId, name, held -> null);
    }

    /** {@link RLock#tryLockAsync}: as {@link #lockAsync} for cancelling. */
    static CompletableFuture<Boolean> tryLockAsync(Acquirer acquirer, Unlocker unlocker, long waitTime, long leaseTime,
            TimeUnit unit, long threadId, String name) {
        Require.leaseTime(leaseTime, unit);
        Require.waitTime(waitTime);
        return linked(acquirer.acquire(unit.toNanos(waitTime), leaseTime, unit, threadId), unlocker, threadId, name,
                held -> held);
    }

    // ---- the reads of RLock: the k-th largest answer (k = n: all; k = n/2+1: a majority)

    /** Whether at least {@code k} of the locks are locked. */
    static CompletableFuture<Boolean> isLocked(List<RLock> locks, int k) {
        return bare(rank(locks, k, false, lock -> lock.isLockedAsync().thenApply(locked -> locked ? 1L : 0L))
                .thenApply(ranked -> ranked == 1));
    }

    /** The largest hold count of {@code threadId} that at least {@code k} of the locks have. */
    static CompletableFuture<Integer> holdCount(List<RLock> locks, int k, long threadId) {
        return bare(rank(locks, k, false, lock -> lock.getHoldCountAsync(threadId).thenApply(Integer::longValue))
                .thenApply(Long::intValue));
    }

    /**
     * How long at least {@code k} of the locks stay locked: {@code -1} when they have no expiry,
     * {@code -2} when fewer than {@code k} are locked. While some locks do not answer, a lower
     * bound over those that do, when {@code k} of them do.
     */
    static CompletableFuture<Long> remainTimeToLive(List<RLock> locks, int k) {
        // -1 (no expiry) ranks above every lease, -2 (not locked) below
        return bare(rank(locks, k, true, lock -> lock.remainTimeToLiveAsync().thenApply(ttl -> ttl == -1 ? Long.MAX_VALUE : ttl))
                .thenApply(ttl -> ttl == Long.MAX_VALUE ? -1 : ttl));
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
                observed.mark(dev.padlock.LockObserver.Outcome.INTERRUPTED);
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
        return mapped != null ? mapped : unchecked(RedisErrors.unwrap(failure));
    }

    /** Whether any of {@code locks} told {@code threadId} of a loss at or after {@code sinceNanos} (see {@link ToldLosses}). */
    static boolean toldLostSince(List<RLock> locks, long threadId, long sinceNanos) {
        for (RLock lock : locks) {
            if (lock instanceof ToldLosses losses && losses.toldLostSince(threadId, sinceNanos)) {
                return true;
            }
        }
        return false;
    }

    /** The lease registries of {@code locks}' clients, each once (see {@link ReportsToLeases}). */
    static List<LeaseClocks> leaseClocks(List<RLock> locks) {
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
}
