package dev.padlock.internal.composite;

import static java.util.Objects.requireNonNull;

import dev.padlock.PadlockException;
import dev.padlock.RLock;
import dev.padlock.internal.base.Require;
import dev.padlock.internal.redis.RedisErrors;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The composites' calls on their components: checking them, calling and reading them all
 * together, and combining their answers ({@link CompositeLock} holds the facade over them).
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

    /** {@code failure} as an unchecked exception to throw; an {@link Error} is thrown as it is. */
    static RuntimeException unchecked(Throwable failure) {
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

    /** Whether any of {@code locks} told {@code threadId} of a loss at or after {@code sinceNanos} (see {@link ToldLosses}). */
    static boolean toldLostSince(List<RLock> locks, long threadId, long sinceNanos) {
        for (RLock lock : locks) {
            if (lock instanceof ToldLosses losses && losses.toldLostSince(threadId, sinceNanos)) {
                return true;
            }
        }
        return false;
    }
}
