package dev.padlock.tests.soak;

import static dev.padlock.tests.soak.SoakWorker.LEASE_MS;
import static dev.padlock.tests.soak.SoakWorker.WAIT_MS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

import dev.padlock.RFencedLock;
import dev.padlock.RLock;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * One worker thread's loop ({@link SoakWorker}): acquire through a seeded choice of call, a short
 * critical section, unlock, until the run's end.
 *
 * <p>Every acquisition goes through the asynchronous twin of its call, owned by this thread's id,
 * and its completion is stamped in the future's callback, on whichever thread completes it,
 * before this thread wakes to join it. The stamp is when the caller was told: a JVM stopped after
 * it shows as a holder paused after it was told. What lies between the engine's last look at the
 * lease and the clock read (a few engine steps and future completions) is blind: a thread
 * descheduled there on a busy machine, then stopped with its JVM, stamps after the resume; see
 * {@link SoakOverlaps} for how an overlap of such a holder is judged. The thread then unlocks
 * with the blocking {@code unlock()}, as the same owner.
 */
final class SoakLoop {

    /** The calls a thread picks from, each iteration. */
    enum Op {
        TRY_FIXED, TRY_WATCHDOG, LOCK_WATCHDOG, LOCK_FIXED, FENCED_TRY_FIXED, FENCED_TRY_WATCHDOG, FENCED_LOCK;

        long waitMs() {
            return switch (this) {
                case LOCK_WATCHDOG, LOCK_FIXED, FENCED_LOCK -> -1;
                case TRY_FIXED, TRY_WATCHDOG, FENCED_TRY_FIXED, FENCED_TRY_WATCHDOG -> WAIT_MS;
            };
        }

        long leaseMs() {
            return switch (this) {
                case TRY_FIXED, LOCK_FIXED, FENCED_TRY_FIXED -> LEASE_MS;
                case TRY_WATCHDOG, LOCK_WATCHDOG, FENCED_TRY_WATCHDOG, FENCED_LOCK -> 0;
            };
        }
    }

    /**
     * How much longer than its wait plus twice the command timeout a bounded acquisition's future
     * may take before the thread stops joining it: only to catch a hang, never reached otherwise.
     */
    static final long JOIN_SLACK_MS = 10_000;

    /** The worker's side of a waiter stop's hold, through the resource's Redis (see {@link SoakRun}). */
    interface Control {
        /**
         * An armed thread holds the lock (its acquisition {@code seq}): says so, and returns once
         * the controller lets it go, or after a bound.
         *
         * @return whether the controller let it go
         */
        boolean holdUntilLetGo(int thread, long seq);
    }

    /**
     * The worker's shared state: what the controller armed (a stall, a hold to keep until let
     * go), when each thread's acquisition in progress began (0: none), and its count of
     * acquisitions.
     */
    record Shared(AtomicLong pendingStall, AtomicBoolean pendingHold, Control control, AtomicLongArray waitingSince,
            AtomicLong acquisitions, long commandTimeoutMs) {
    }

    /** How one acquisition ended: its value (or failure) and when its future completed. */
    private record Ending(Object value, Throwable failure, long toldUs) {
    }

    private final int thread;
    private final String who;
    private final Random random;
    private final RLock lock;
    private final RFencedLock fenced;
    private final FencedResource resource;
    private final SoakLog log;
    private final Shared shared;

    SoakLoop(int thread, String who, Random random, RLock lock, RFencedLock fenced, FencedResource resource,
            SoakLog log, Shared shared) {
        this.thread = thread;
        this.who = who;
        this.random = random;
        this.lock = lock;
        this.fenced = fenced;
        this.resource = resource;
        this.log = log;
        this.shared = shared;
    }

    void run(long endMicros) throws InterruptedException {
        long owner = Thread.currentThread().getId(); // the owner id of the blocking unlock()
        Op[] ops = Op.values();
        long seq = 0;
        while (SoakLog.nowMicros() < endMicros) {
            Op op = ops[random.nextInt(ops.length)];
            long attempt = SoakLog.nowMicros();
            shared.waitingSince().set(thread, attempt);
            Ending ending = acquire(op, owner);
            shared.waitingSince().set(thread, 0);
            if (ending.failure() != null) {
                log.write("FAIL", thread, op, op.waitMs(), op.leaseMs(), attempt, ending.toldUs(),
                        SoakWorker.kind(ending.failure()), String.valueOf(ending.failure().getMessage()));
                checkNotHeld("FAIL");
                Thread.sleep(5);
                continue;
            }
            Long token = ending.value() instanceof Long t ? t : null;
            boolean acquired = switch (op) {
                case TRY_FIXED, TRY_WATCHDOG -> Boolean.TRUE.equals(ending.value());
                case LOCK_WATCHDOG, LOCK_FIXED -> true;
                case FENCED_TRY_FIXED, FENCED_TRY_WATCHDOG, FENCED_LOCK -> token != null;
            };
            if (!acquired) {
                log.write("TIMEOUT", thread, op, op.waitMs(), op.leaseMs(), attempt, ending.toldUs());
                checkNotHeld("TIMEOUT");
                continue;
            }
            long returned = SoakLog.nowMicros();
            seq++;
            shared.acquisitions().incrementAndGet();
            log.write("ACQ", thread, seq, op, op.waitMs(), op.leaseMs(), attempt, ending.toldUs(), returned,
                    token == null ? "-" : token);
            criticalSection(op, seq, token);
            long releaseStart = SoakLog.nowMicros();
            String result;
            try {
                lock.unlock();
                result = "OK";
            } catch (IllegalMonitorStateException e) {
                result = "NOT_HELD";
            } catch (RuntimeException e) {
                result = SoakWorker.kind(e);
            }
            log.write("REL", thread, seq, releaseStart, SoakLog.nowMicros(), result);
            if (result.equals("OK")) {
                checkNotHeld("UNLOCK");
            }
            Thread.sleep(random.nextInt(3));
        }
    }

    /**
     * Starts {@code op}'s asynchronous call for {@code owner}, stamps its completion in the
     * future's callback, and joins it: without bound for an unbounded wait (a hang then shows as a
     * worker that does not finish), else for its wait plus twice the command timeout plus
     * {@link #JOIN_SLACK_MS}, after which it is cancelled and reported as a failure.
     */
    private Ending acquire(Op op, long owner) throws InterruptedException {
        CompletableFuture<?> future;
        try {
            future = switch (op) {
                case TRY_FIXED -> lock.tryLockAsync(WAIT_MS, LEASE_MS, MILLISECONDS, owner);
                case TRY_WATCHDOG -> lock.tryLockAsync(WAIT_MS, -1, MILLISECONDS, owner);
                case LOCK_WATCHDOG -> lock.lockAsync(-1, MILLISECONDS, owner);
                case LOCK_FIXED -> lock.lockAsync(LEASE_MS, MILLISECONDS, owner);
                case FENCED_TRY_FIXED -> fenced.tryLockAndGetTokenAsync(WAIT_MS, LEASE_MS, MILLISECONDS, owner);
                case FENCED_TRY_WATCHDOG -> fenced.tryLockAndGetTokenAsync(WAIT_MS, -1, MILLISECONDS, owner);
                case FENCED_LOCK -> fenced.lockAndGetTokenAsync(-1, MILLISECONDS, owner);
            };
        } catch (RuntimeException e) {
            return new Ending(null, e, SoakLog.nowMicros());
        }
        // written in the callback; read after joining the future that the callback completes
        long[] toldUs = new long[1];
        CompletableFuture<?> stamped = future.whenComplete((value, failure) -> toldUs[0] = SoakLog.nowMicros());
        try {
            Object value = op.waitMs() < 0 ? stamped.get()
                    : stamped.get(op.waitMs() + 2 * shared.commandTimeoutMs() + JOIN_SLACK_MS, MILLISECONDS);
            return new Ending(value, null, toldUs[0]);
        } catch (ExecutionException e) {
            return new Ending(null, unwrap(e.getCause()), toldUs[0]);
        } catch (TimeoutException e) {
            future.cancel(false);
            return new Ending(null, new IllegalStateException("future did not complete within its wait + "
                    + (2 * shared.commandTimeoutMs() + JOIN_SLACK_MS) + " ms", e), SoakLog.nowMicros());
        } catch (CancellationException e) {
            return new Ending(null, e, SoakLog.nowMicros());
        }
    }

    private static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    /**
     * Asks Redis whether this thread still holds the lock although it unlocked its only hold,
     * or was told it did not get it: a stray hold, logged as such. Left in place, as a user's
     * thread would leave it. An error of the question itself is not judged.
     */
    private void checkNotHeld(String after) {
        try {
            if (lock.isHeldByCurrentThread()) {
                log.write("STRAY", thread, after, SoakLog.nowMicros());
            }
        } catch (RuntimeException e) {
            // Redis did not answer: nothing to judge.
        }
    }

    private void criticalSection(Op op, long seq, Long token) throws InterruptedException {
        // a watchdog lease, renewed however long the controller keeps it: others wait behind it
        if (op.leaseMs() == 0 && shared.pendingHold().getAndSet(false)) {
            log.write("HOLD", thread, seq, SoakLog.nowMicros());
            boolean letGo = shared.control().holdUntilLetGo(thread, seq);
            log.write("LETGO", thread, seq, SoakLog.nowMicros(), letGo);
        }
        if (op.leaseMs() > 0) {
            long stall = shared.pendingStall().getAndSet(0);
            if (stall > 0) {
                log.write("STALL", thread, seq, SoakLog.nowMicros(), stall);
                Thread.sleep(stall);
            }
        }
        if (token != null) {
            long start = SoakLog.nowMicros();
            FencedResource.Write write = resource.write(token, who + "#" + seq);
            log.write("WRITE", thread, seq, start, SoakLog.nowMicros(), token, write.accepted() ? "A" : "R",
                    write.previousMax());
        }
        Thread.sleep(1 + random.nextInt(3));
    }
}
