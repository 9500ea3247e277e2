package dev.padlock.internal;

import static dev.padlock.internal.CompositeLocks.call;
import static dev.padlock.internal.CompositeLocks.currentThreadId;

import dev.padlock.LockConfig;
import dev.padlock.PadlockException;
import dev.padlock.RLock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.Condition;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Redlock algorithm over component locks on independent Redis servers
 * ({@link dev.padlock.LockClient#getRedLock}): held when a majority of them was acquired within
 * the validity time.
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
 * ({@code leaseTime <= 0}) is each component's own, renewed by its client; the validity is then
 * reckoned over {@link LockConfig#DEFAULT_WATCHDOG_TIMEOUT}.
 *
 * <p>Reads answer what a majority agrees on; a failed read is reported only when the answer
 * depends on it.
 */
final class RedLock implements RLock {
    private static final Logger log = LoggerFactory.getLogger(RedLock.class);

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
    private final String name;

    private RedLock(List<RLock> locks) {
        this.locks = locks;
        this.quorum = locks.size() / 2 + 1;
        this.name = CompositeLocks.name("red", locks);
    }

    /**
     * A red lock over {@code locks}, each on its own Redis server.
     *
     * @throws NullPointerException when {@code locks} or one of them is null
     * @throws IllegalArgumentException when {@code locks} is empty or holds one object twice
     */
    static RLock of(RLock... locks) {
        return new RedLock(CompositeLocks.components(locks));
    }

    /** {@code red[a,b,c]}: the components' names in the given order. */
    @Override
    public String getName() {
        return name;
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
        return CompositeLocks.lockAsync(this::acquire, leaseTime, unit, threadId);
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync(long waitTime, long leaseTime, TimeUnit unit, long threadId) {
        return CompositeLocks.tryLockAsync(this::acquire, waitTime, leaseTime, unit, threadId);
    }

    private PendingAcquire acquire(long waitNanos, long leaseTime, TimeUnit unit, long threadId) {
        Acquisition acquisition = new Acquisition(waitNanos, leaseTime <= 0 ? -1 : Math.max(1, unit.toMillis(leaseTime)),
                threadId);
        acquisition.nextRound();
        return acquisition;
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
        return CompositeLocks.bare(CompositeLocks.callAll(locks, lock -> lock.unlockAsync(threadId)).thenApply(outcomes -> {
            long unlocked = outcomes.stream().filter(outcome -> !outcome.failed()).count();
            long notHeld = outcomes.stream().filter(outcome -> outcome.failure() instanceof IllegalMonitorStateException).count();
            List<CompositeLocks.Outcome<Void>> problems = outcomes.stream()
                    .filter(outcome -> outcome.failed() && !(outcome.failure() instanceof IllegalMonitorStateException))
                    .collect(Collectors.toList());
            if (unlocked > 0) {
                problems.forEach(problem -> log.warn("unlock of red lock '{}': a component failed and, if it was held, "
                        + "stays locked until its lease ends: {}", name, problem.failure().toString()));
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

    /** Completes after {@code delay}, on the JDK's delay thread, not on a pool an application may saturate. */
    private static CompletableFuture<Void> after(long delay, TimeUnit unit) {
        return new CompletableFuture<Void>().completeOnTimeout(null, delay, unit);
    }

    private void logCleanUp(RLock lock, Throwable failure) {
        Throwable cause = failure == null ? null : RedisErrors.unwrap(failure);
        if (cause instanceof IllegalMonitorStateException) {
            log.debug("red lock '{}': '{}' was no longer held when given back: {}", name, lock.getName(), cause.getMessage());
        } else if (cause != null) {
            log.warn("red lock '{}': could not give back '{}'; it stays locked until its lease ends: {}",
                    name, lock.getName(), cause.toString());
        }
    }

    /**
     * One acquisition: rounds until held, out of wait, failed or cancelled. {@link #result} may
     * be cancelled at any time; the open round then closes and gives back what it got.
     * {@link #settled} completes once the rounds have ended and every late reply was handled.
     */
    private final class Acquisition implements PendingAcquire {
        /** The components' lease in milliseconds; {@code -1}: their watchdog lease. */
        private final long leaseMillis;
        private final long validityLeaseMillis;
        private final long driftMillis;
        private final long threadId;
        private final boolean forever;
        private final long deadlineNanos;
        private final CompletableFuture<Boolean> result = new CompletableFuture<>();
        private final CompletableFuture<Void> settled = new CompletableFuture<>();
        /** Late replies not yet handled, plus one for the rounds until they end; settled at zero. */
        private final AtomicInteger unsettled = new AtomicInteger(1);
        /** The round in progress or the last one; a cancel closes it. */
        private volatile Round round;

        Acquisition(long waitNanos, long leaseMillis, long threadId) {
            this.leaseMillis = leaseMillis;
            this.validityLeaseMillis = leaseMillis > 0 ? leaseMillis : LockConfig.DEFAULT_WATCHDOG_TIMEOUT.toMillis();
            this.driftMillis = validityLeaseMillis / 100 + 2;
            this.threadId = threadId;
            this.forever = waitNanos >= Long.MAX_VALUE / 4;
            this.deadlineNanos = forever ? 0 : System.nanoTime() + waitNanos;
            result.whenComplete((held, failure) -> {
                Round open = round;
                if (result.isCancelled() && open != null) {
                    open.close();
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

        void nextRound() {
            if (result.isDone()) {
                settleOne();
                return;
            }
            long waitLeftMillis = forever ? Long.MAX_VALUE
                    : TimeUnit.NANOSECONDS.toMillis(Math.max(0, deadlineNanos - System.nanoTime()));
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
        private void afterFailedRound(Throwable misuse, int failed, Throwable firstFailure) {
            if (result.isDone()) {
                settleOne();
                return;
            }
            if (misuse != null) {
                result.completeExceptionally(misuse);
                settleOne();
                return;
            }
            long leftNanos = forever ? Long.MAX_VALUE : deadlineNanos - System.nanoTime();
            if (leftNanos > 0) {
                long delayNanos = TimeUnit.MILLISECONDS.toNanos(ThreadLocalRandom.current().nextLong(MAX_RETRY_DELAY_MILLIS + 1));
                after(Math.min(delayNanos, leftNanos), TimeUnit.NANOSECONDS).thenRun(this::nextRound);
                return;
            }
            if (failed > locks.size() - quorum) {
                log.warn("red lock '{}' not acquired: {} of {} locks failed in the last round, e.g.: {}",
                        name, failed, locks.size(), firstFailure.toString());
            }
            result.complete(false);
            settleOne();
        }

        private void settleOne() {
            if (unsettled.decrementAndGet() == 0) {
                settled.complete(null);
            }
        }

        /** One round: a reply slot for each component, going {@code PENDING ->} an outcome or {@code LATE}. */
        private final class Round {
            private final long startNanos = System.nanoTime();
            private final AtomicIntegerArray slots = new AtomicIntegerArray(locks.size());
            private final AtomicReferenceArray<Throwable> failures = new AtomicReferenceArray<>(locks.size());
            private final AtomicBoolean closed = new AtomicBoolean();

            void send(int index) {
                RLock lock = locks.get(index);
                call(() -> lock.tryLockAsync(0, leaseMillis, TimeUnit.MILLISECONDS, threadId))
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
                long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
                List<RLock> acquired = new ArrayList<>();
                Throwable misuse = null;
                Throwable firstFailure = null;
                int failed = 0;
                for (int i = 0; i < slots.length(); i++) {
                    unsettled.incrementAndGet(); // before the slot can be seen LATE, so settled cannot complete early
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
                if (misuse == null && acquired.size() >= quorum && validityMillis > 0 && result.complete(true)) {
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
}
