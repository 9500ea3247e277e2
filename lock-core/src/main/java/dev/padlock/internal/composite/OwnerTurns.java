package dev.padlock.internal.composite;

import static dev.padlock.internal.base.Nulls.castToNonNull;

import dev.padlock.internal.acquire.PendingAcquire;
import dev.padlock.internal.base.Timeouts;
import dev.padlock.internal.base.WaitBudget;
import io.netty.util.Timer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Orders one owner's acquisitions of one composite lock: each starts once the owner's earlier one
 * has settled. One client has one {@code OwnerTurns} for all its composites
 * ({@link CompositeServices}), keyed by the composite's identity (its kind and its components'
 * names, see {@link CompositeLock}) and the owner, so that two objects for the same composite
 * (two calls of {@code client.getMultiLock(a, b)}) take turns as one does.
 *
 * <p>Why: a composite's rounds give back what they took when a round fails, so between rounds an
 * acquisition holds nothing. Two acquisitions of one owner in flight at once would each take the
 * owner's field on some servers with a claim (which sets the count to 1, not adds to it) and count
 * a majority between them that Redis counts once: the owner is told it holds twice, and its first
 * unlock frees servers the other hold counts on. In turn, the later acquisition re-enters the
 * servers the earlier one holds (a re-entry adds to the count), or claims them if it held nothing.
 *
 * <p>An entry lives while an acquisition of its owner is in flight or waits its turn: it is
 * removed once the latest acquisition of that owner and composite has settled, so the map holds no
 * more entries than acquisitions in flight.
 *
 * <p>A later acquisition that waits its turn ends with {@code false} when its own wait runs out (at
 * once for a one-attempt {@code tryLock}), and does nothing when cancelled first.
 */
public final class OwnerTurns {
    /** Per composite and owner: completes once its latest acquisition has settled. */
    private final ConcurrentHashMap<Turn, CompletableFuture<Void>> latest = new ConcurrentHashMap<>();

    /** One owner of one composite. */
    private record Turn(String composite, long owner) {
    }

    /** An empty set of turns, for one client. */
    public OwnerTurns() {
    }

    /**
     * Starts {@code start} for {@code owner} now, or once the owner's earlier acquisition of the
     * composite {@code composite} settled.
     *
     * @param composite the composite's identity: its kind and its components' names
     * @param budget the caller's wait, counted from the call, not from the turn
     * @param giveBack unlocks one hold of the owner: a hold that came as its caller cancelled
     */
    PendingAcquire start(String composite, long owner, WaitBudget budget, Timer timer, Supplier<PendingAcquire> start,
            Runnable giveBack) {
        Turn turn = new Turn(composite, owner);
        CompletableFuture<Void> mine = new CompletableFuture<>();
        CompletableFuture<Void> earlier = latest.put(turn, mine);
        mine.whenComplete((ignored, failure) -> latest.remove(turn, mine));
        if (earlier == null || earlier.isDone()) {
            return started(start, mine);
        }
        return new Waiting(budget, timer, start, giveBack, mine).after(earlier);
    }

    /** Composites and owners with an acquisition in flight or waiting its turn; for tests. */
    int inFlight() {
        return latest.size();
    }

    private static PendingAcquire started(Supplier<PendingAcquire> start, CompletableFuture<Void> settled) {
        PendingAcquire acquisition;
        try {
            acquisition = start.get();
        } catch (RuntimeException | Error e) {
            settled.complete(null);
            throw e;
        }
        acquisition.settled().whenComplete((ignored, failure) -> settled.complete(null));
        return acquisition;
    }

    /** An acquisition waiting for the owner's earlier one; then the one it started. */
    private static final class Waiting implements PendingAcquire {
        private final WaitBudget budget;
        private final Timer timer;
        private final Supplier<PendingAcquire> start;
        private final Runnable giveBack;
        private final CompletableFuture<Void> settled;
        private final CompletableFuture<Boolean> result = new CompletableFuture<>();
        /** Set once: started, or ended before its turn. */
        private final AtomicBoolean decided = new AtomicBoolean();
        private volatile @Nullable PendingAcquire started;
        /** The owner's earlier acquisition: one that ends before its turn settles no earlier than it. */
        private @Nullable CompletableFuture<Void> earlier;

        Waiting(WaitBudget budget, Timer timer, Supplier<PendingAcquire> start, Runnable giveBack,
                CompletableFuture<Void> settled) {
            this.budget = budget;
            this.timer = timer;
            this.start = start;
            this.giveBack = giveBack;
            this.settled = settled;
        }

        Waiting after(CompletableFuture<Void> earlier) {
            this.earlier = earlier;
            if (budget.oneAttempt()) {
                endUnstarted(); // no wait to spend on the turn
                return this;
            }
            if (!budget.forever()) {
                CompletableFuture<Boolean> bound = Timeouts.completeAfter(timer, new CompletableFuture<>(), false,
                        budget.remainingNanos(), TimeUnit.NANOSECONDS);
                bound.thenRun(this::endUnstarted);
                result.whenComplete((held, failure) -> bound.complete(true)); // nothing stays on the timer
            }
            result.whenComplete((held, failure) -> {
                if (result.isCancelled()) {
                    PendingAcquire inner = started;
                    if (inner == null) {
                        endUnstarted();
                    } else {
                        inner.result().cancel(false);
                    }
                }
            });
            earlier.whenComplete((ignored, failure) -> {
                if (decided.compareAndSet(false, true)) {
                    run();
                }
            });
            return this;
        }

        private void run() {
            PendingAcquire inner;
            try {
                inner = started(start, settled);
            } catch (RuntimeException | Error e) {
                result.completeExceptionally(e);
                return;
            }
            started = inner;
            inner.result().whenComplete((held, failure) -> {
                boolean told = failure == null ? result.complete(held) : result.completeExceptionally(failure);
                if (!told && failure == null && Boolean.TRUE.equals(held)) {
                    giveBack.run(); // cancelled as it landed: nobody will unlock it
                }
            });
            if (result.isCancelled()) {
                inner.result().cancel(false);
            }
        }

        /** Its wait ran out, or it was cancelled, before its turn: it ends without asking Redis. */
        private void endUnstarted() {
            if (decided.compareAndSet(false, true)) {
                result.complete(false);
                castToNonNull(earlier).whenComplete((ignored, failure) -> settled.complete(null)); // keeps the turns in order
            }
        }

        @Override
        public CompletableFuture<Boolean> result() {
            return result;
        }

        @Override
        public CompletableFuture<Void> settled() {
            return settled;
        }

        @Override
        public long token() {
            PendingAcquire inner = started;
            return inner == null ? PendingAcquire.super.token() : inner.token();
        }

        @Override
        public @Nullable Throwable lastUnanswered() {
            PendingAcquire inner = started;
            return inner == null ? null : inner.lastUnanswered();
        }
    }
}
