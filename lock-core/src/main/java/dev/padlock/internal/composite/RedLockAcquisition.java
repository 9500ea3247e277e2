package dev.padlock.internal.composite;

import static dev.padlock.internal.base.Nulls.castToNonNull;
import static dev.padlock.internal.composite.CompositeLocks.call;

import dev.padlock.LockConfig;
import dev.padlock.PadlockException;
import dev.padlock.RLock;
import dev.padlock.internal.acquire.PendingAcquire;
import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.base.Timeouts;
import dev.padlock.internal.base.WaitBudget;
import dev.padlock.internal.lease.LeaseMillis;
import dev.padlock.internal.redis.RedisErrors;
import io.netty.util.Timer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;

/**
 * One acquisition of a {@link RedLock}: rounds until held, out of wait, failed or cancelled.
 * {@link #result()} may be cancelled at any time; the open round then closes and gives back what
 * it got. {@link #settled()} completes once the rounds have ended and every late reply was handled.
 *
 * <h2>Implementation notes</h2>
 * An acquisition runs in rounds, as the Redlock description on redis.io has it:
 * <ol>
 *   <li>one attempt without wait is sent to every component at once;</li>
 *   <li>replies are collected until all are in, a majority can no longer be reached, or the round
 *       times out: after a tenth of the lease, within [50 ms, 1 s], and no later than the wait
 *       left (a round lasts 50 ms at least, so a zero wait still gets one);</li>
 *   <li>held when a majority ({@code n/2+1}) was acquired and the validity,
 *       {@code lease - elapsed - drift} with a drift of 1 % of the lease plus 2 ms, is positive;</li>
 *   <li>else what was acquired is unlocked and, while wait is left, a new round starts after a
 *       random delay of up to 50 ms.</li>
 * </ol>
 * A reply that arrives after its round closed is unlocked when it says acquired. A component
 * that fails counts as not acquired, so a minority of servers may be down; its failure is logged.
 * Misuse reported by a component (its client closed) fails the acquisition. A watchdog lease
 * ({@link LeaseMillis#WATCHDOG}) is each component's own, renewed by its client; the validity is then
 * reckoned over {@link LockConfig#DEFAULT_WATCHDOG_TIMEOUT}.
 *
 * <p><b>A re-entry needs every server that counts the owner's holds.</b> A re-entry adds one to the
 * owner's count on the servers it reaches. Held on a bare majority, the new hold could rest on a
 * server where the owner's earlier holds were lost (its count starts again at 1) while a server
 * that counts them was missed: each unlock then takes one off every server, and the owner's last
 * hold stands on a minority. So a round ends held only when, besides the quorum, every component
 * whose holds of the owner this client counted when the acquisition began was acquired again; a
 * re-entry thus waits, and fails at the end of its wait, while such a server does not answer.
 */
final class RedLockAcquisition implements PendingAcquire {
    private static final long MIN_ROUND_MILLIS = 50;
    private static final long MAX_ROUND_MILLIS = 1_000;
    private static final long MAX_RETRY_DELAY_MILLIS = 50;

    private static final int PENDING = 0;
    private static final int ACQUIRED = 1;
    private static final int REFUSED = 2;
    private static final int FAILED = 3;
    /** No reply when the round closed; the reply is handled on its own when it comes. */
    private static final int LATE = 4;

    private final List<RLock> locks;
    private final int quorum;
    /** The red lock's name, for log lines. */
    private final String name;
    /** The red lock's logger, so its log lines keep their category. */
    private final Logger log;
    /** The components' lease in milliseconds, or {@link LeaseMillis#WATCHDOG}: their watchdog lease. */
    private final long leaseMillis;
    private final long validityLeaseMillis;
    private final long driftMillis;
    private final long threadId;
    private final WaitBudget budget;
    private final EngineClock clock;
    private final Timer timer;
    private final CompletableFuture<Boolean> result = new CompletableFuture<>();
    private final CompletableFuture<Void> settled = new CompletableFuture<>();
    /** Late replies not yet handled, plus one for the rounds until they end; settled at zero. */
    private final AtomicInteger unsettled = new AtomicInteger(1);
    /**
     * By component: whether the owner held it when the acquisition began (its attempt re-enters).
     * A round ends held only when every one of those was acquired again, besides the quorum.
     */
    private final boolean[] heldBefore;
    /** The round in progress or the last one; a cancel closes it. */
    private volatile @Nullable Round round;

    private RedLockAcquisition(List<RLock> locks, int quorum, String name, Logger log, WaitBudget budget,
            EngineClock clock, Timer timer, long leaseMillis, long threadId) {
        this.locks = locks;
        this.budget = budget;
        this.clock = clock;
        this.timer = timer;
        this.quorum = quorum;
        this.name = name;
        this.log = log;
        this.leaseMillis = leaseMillis;
        this.validityLeaseMillis = LeaseMillis.ttlMillis(leaseMillis, LockConfig.DEFAULT_WATCHDOG_TIMEOUT.toMillis());
        this.driftMillis = validityLeaseMillis / 100 + 2;
        this.threadId = threadId;
        this.heldBefore = new boolean[locks.size()];
        for (int i = 0; i < locks.size(); i++) {
            heldBefore[i] = locks.get(i) instanceof HoldsForgetting counting && counting.countsHolds(threadId);
        }
        result.whenComplete((held, failure) -> {
            Round open = round;
            if (result.isCancelled() && open != null) {
                open.close();
            }
        });
    }

    /**
     * Starts an acquisition of the red lock {@code name} over {@code locks}, with its first round.
     *
     * @param locks the component locks, one a Redis server
     * @param quorum how many components make a majority
     * @param name the red lock's name, for log lines
     * @param log the red lock's logger
     * @param budget how long to go on with new rounds
     * @param clock times the rounds (their validity)
     * @param timer ends rounds and spaces retries
     * @param leaseMillis the components' lease in milliseconds; {@link LeaseMillis#WATCHDOG}: their watchdog lease
     * @param threadId the owner to acquire for
     * @return the acquisition in progress
     */
    static RedLockAcquisition start(List<RLock> locks, int quorum, String name, Logger log, WaitBudget budget,
            EngineClock clock, Timer timer, long leaseMillis, long threadId) {
        RedLockAcquisition acquisition = new RedLockAcquisition(locks, quorum, name, log, budget, clock, timer,
                leaseMillis, threadId);
        acquisition.nextRound();
        return acquisition;
    }

    @Override
    public CompletableFuture<Boolean> result() {
        return result;
    }

    @Override
    public CompletableFuture<Void> settled() {
        return settled;
    }

    private void nextRound() {
        if (result.isDone()) {
            settleOne();
            return;
        }
        long waitLeftMillis = budget.forever() ? Long.MAX_VALUE : TimeUnit.NANOSECONDS.toMillis(budget.remainingNanos());
        long timeoutMillis = Math.min(Math.max(MIN_ROUND_MILLIS, Math.min(MAX_ROUND_MILLIS, validityLeaseMillis / 10)),
                Math.max(MIN_ROUND_MILLIS, waitLeftMillis));
        Round next = new Round();
        round = next;
        for (int i = 0; i < locks.size(); i++) {
            next.send(i);
        }
        after(timeoutMillis, TimeUnit.MILLISECONDS).thenRun(next::close);
        if (result.isCancelled()) {
            next.close();
        }
    }

    /** After a round that did not end held, with what was acquired given back. */
    private void afterFailedRound(@Nullable Throwable misuse, int failed, @Nullable Throwable firstFailure) {
        if (result.isDone()) {
            settleOne();
            return;
        }
        if (misuse != null) {
            result.completeExceptionally(misuse);
            settleOne();
            return;
        }
        long leftNanos = budget.remainingNanos();
        if (leftNanos > 0) {
            long delayNanos = TimeUnit.MILLISECONDS.toNanos(clock.jitter(MAX_RETRY_DELAY_MILLIS));
            after(Math.min(delayNanos, leftNanos), TimeUnit.NANOSECONDS).thenRun(this::nextRound);
            return;
        }
        if (failed > locks.size() - quorum) {
            log.warn("red lock '{}' not acquired: {} of {} locks failed in the last round, e.g.: {}",
                    name, failed, locks.size(), castToNonNull(firstFailure).toString()); // failed > 0
        }
        result.complete(false);
        settleOne();
    }

    private void settleOne() {
        if (unsettled.decrementAndGet() == 0) {
            settled.complete(null);
        }
    }

    /** Completes after {@code delay}, on the timer's thread, not on a pool an application may saturate. */
    private CompletableFuture<Void> after(long delay, TimeUnit unit) {
        return Timeouts.after(timer, delay, unit);
    }

    private void logCleanUp(RLock lock, @Nullable Throwable failure) {
        Throwable cause = failure == null ? null : RedisErrors.unwrap(failure);
        if (cause instanceof IllegalMonitorStateException) {
            log.debug("red lock '{}': '{}' was no longer held when given back: {}", name, lock.getName(), cause.getMessage());
        } else if (cause != null) {
            log.warn("red lock '{}': could not give back '{}'; it stays locked until its lease ends: {}",
                    name, lock.getName(), cause.toString());
        }
    }

    /** One round: a reply slot for each component, going {@code PENDING ->} an outcome or {@code LATE}. */
    private final class Round {
        private final long startNanos = clock.nanoTime();
        private final AtomicIntegerArray slots = new AtomicIntegerArray(locks.size());
        private final AtomicReferenceArray<Throwable> failures = new AtomicReferenceArray<>(locks.size());
        private final AtomicBoolean closed = new AtomicBoolean();

        void send(int index) {
            RLock lock = locks.get(index);
            call(() -> lock instanceof RoundAttempts once ? once.tryOnceAsync(leaseMillis, threadId)
                    : lock.tryLockAsync(0, leaseMillis, TimeUnit.MILLISECONDS, threadId))
                    .whenComplete((acquired, failure) -> onReply(index, acquired, failure));
        }

        private void onReply(int index, Boolean acquired, Throwable failure) {
            Throwable cause = failure == null ? null : RedisErrors.unwrap(failure);
            int outcome = cause != null ? FAILED : Boolean.TRUE.equals(acquired) ? ACQUIRED : REFUSED;
            failures.set(index, cause);
            if (slots.compareAndSet(index, PENDING, outcome)) {
                if (decided()) {
                    close();
                }
                return;
            }
            RLock lock = locks.get(index);
            if (outcome == ACQUIRED) {
                call(() -> lock.unlockAsync(threadId)).whenComplete((ignored, error) -> {
                    logCleanUp(lock, error);
                    settleOne();
                });
            } else {
                if (cause != null) {
                    log.debug("red lock '{}': late attempt on '{}' failed: {}", name, lock.getName(), cause.toString());
                }
                settleOne();
            }
        }

        /** Whether all replies are in or a majority can no longer be reached. */
        private boolean decided() {
            int acquired = 0;
            int pending = 0;
            for (int i = 0; i < slots.length(); i++) {
                int state = slots.get(i);
                acquired += state == ACQUIRED ? 1 : 0;
                pending += state == PENDING ? 1 : 0;
            }
            return pending == 0 || acquired + pending < quorum;
        }

        /** Ends the round (once): held, or gives back what it got and goes on. */
        void close() {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            long elapsedMillis = clock.millisSince(startNanos);
            List<RLock> acquired = new ArrayList<>();
            boolean everyHeldOneAgain = true;
            Throwable misuse = null;
            Throwable firstFailure = null;
            int failed = 0;
            for (int i = 0; i < slots.length(); i++) {
                unsettled.incrementAndGet(); // before the slot can be seen LATE, so settled cannot complete early
                everyHeldOneAgain &= !heldBefore[i] || slots.get(i) == ACQUIRED;
                if (slots.compareAndSet(i, PENDING, LATE)) {
                    continue;
                }
                unsettled.decrementAndGet();
                int state = slots.get(i);
                switch (state) {
                    case ACQUIRED -> acquired.add(locks.get(i));
                    case REFUSED -> { }
                    case FAILED -> {
                        Throwable cause = failures.get(i);
                        failed++;
                        firstFailure = firstFailure == null ? cause : firstFailure;
                        if (!(cause instanceof PadlockException) && misuse == null) {
                            misuse = cause;
                        }
                        log.debug("red lock '{}': attempt on '{}' failed: {}", name, locks.get(i).getName(),
                                cause.toString());
                    }
                    default -> throw new IllegalStateException("reply slot " + i + " in state " + state);
                }
            }
            long validityMillis = validityLeaseMillis - elapsedMillis - driftMillis;
            // a component whose loss was told since the round began counts for nothing (see ToldLosses)
            long live = acquired.stream()
                    .filter(lock -> !CompositeLocks.toldLostSince(List.of(lock), threadId, startNanos)).count();
            if (misuse == null && live >= quorum && everyHeldOneAgain && validityMillis > 0 && result.complete(true)) {
                settleOne();
                return;
            }
            log.debug("red lock '{}': round ended with {} of {} acquired (quorum {}), validity {} ms",
                    name, acquired.size(), locks.size(), quorum, validityMillis);
            Throwable fault = misuse;
            Throwable example = firstFailure;
            int failedCount = failed;
            CompositeLocks.callAll(acquired, lock -> lock.unlockAsync(threadId)).whenComplete((outcomes, ignored) -> {
                for (int i = 0; i < acquired.size(); i++) {
                    logCleanUp(acquired.get(i), outcomes.get(i).failure());
                }
                afterFailedRound(fault, failedCount, example);
            });
        }
    }
}
