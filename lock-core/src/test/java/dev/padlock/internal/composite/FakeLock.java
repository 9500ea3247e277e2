package dev.padlock.internal.composite;

import dev.padlock.LeaseFactory;
import dev.padlock.RLock;
import dev.padlock.internal.lease.LeaseExtending;
import dev.padlock.internal.lease.Leases;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.function.Supplier;

/**
 * An in-memory component lock for the composite locks' tests: it counts the holds it granted
 * (every owner alike), writes each call to a journal shared by the components of one test, and
 * answers at once as it is told, or leaves its futures for the test to complete. Only the
 * asynchronous methods are used by the composites; the blocking ones throw.
 */
final class FakeLock implements RLock, LeaseExtending, HoldsForgetting, ToldLosses {

    /** One acquisition call: what it asked for, and its future. */
    record Acquire(boolean forever, long waitTime, long leaseTime, TimeUnit unit, long threadId,
            CompletableFuture<Boolean> future) {
        long waitMillis() {
            return unit.toMillis(waitTime);
        }

        long leaseMillis() {
            return leaseTime <= 0 ? leaseTime : unit.toMillis(leaseTime);
        }
    }

    private final String name;
    private final List<String> journal;
    private final List<Acquire> acquisitions = new ArrayList<>();
    private final List<CompletableFuture<Void>> heldBackUnlocks = new ArrayList<>();
    /** How the next acquisition answers; null: it is left for the test. */
    private Supplier<CompletableFuture<Boolean>> acquireAnswer = () -> CompletableFuture.completedFuture(true);
    /** How the next unlock of a hold answers; null: it is left for the test. */
    private Supplier<CompletableFuture<Void>> unlockAnswer = () -> CompletableFuture.completedFuture(null);
    private RuntimeException throwAtCall;
    private boolean interruptsCaller;
    private int holds;
    private long ttl = 30_000;
    private Throwable readFailure;
    /** Whether a lease extension finds the hold: false once its lease ran out. */
    private boolean leaseRunsOut;
    /** When its owner was last told it lost this lock; {@link Long#MIN_VALUE}: never. */
    private long toldLostAt = Long.MIN_VALUE;

    FakeLock(String name, List<String> journal) {
        this.name = name;
        this.journal = journal;
    }

    // ---- what the test tells it

    /** Its owner was told, at {@code nanos}, that it lost this lock (the hold is gone). */
    FakeLock toldLostAt(long nanos) {
        toldLostAt = nanos;
        holds = Math.max(0, holds - 1);
        return this;
    }

    @Override
    public boolean toldLostSince(long threadId, long sinceNanos) {
        return toldLostAt != Long.MIN_VALUE && toldLostAt - sinceNanos >= 0;
    }

    /** Acquisitions answer true at once (the default). */
    FakeLock grants() {
        acquireAnswer = () -> CompletableFuture.completedFuture(true);
        return this;
    }

    /** The next lease extension finds the hold gone (its lease ran out), and the hold is gone. */
    FakeLock leaseRunsOut() {
        leaseRunsOut = true;
        return this;
    }

    /** Its holds are gone, as when the watchdog could not renew them. */
    void dropsItsHolds() {
        holds = 0;
    }

    /** Acquisitions answer false at once: another owner holds it. */
    FakeLock refuses() {
        acquireAnswer = () -> CompletableFuture.completedFuture(false);
        return this;
    }

    /** Acquisitions fail with {@code failure}. */
    FakeLock failsWith(Throwable failure) {
        acquireAnswer = () -> CompletableFuture.failedFuture(failure);
        return this;
    }

    /** Acquisitions are left pending: see {@link #answer}. */
    FakeLock holdsBack() {
        acquireAnswer = null;
        return this;
    }

    /**
     * Acquisitions interrupt the calling thread and are left pending: an interrupt that comes
     * while a blocking caller waits for this component.
     */
    FakeLock interruptsCaller() {
        interruptsCaller = true;
        acquireAnswer = null;
        return this;
    }

    /** Every call throws {@code e} before returning a future (a closed client, say). */
    FakeLock throwsAtCall(RuntimeException e) {
        throwAtCall = e;
        return this;
    }

    /** Unlocks of a hold fail with {@code failure} (and the hold stays). */
    FakeLock unlockFailsWith(Throwable failure) {
        unlockAnswer = () -> CompletableFuture.failedFuture(failure);
        return this;
    }

    /** Unlocks of a hold are left pending: see {@link #answerUnlock}. */
    FakeLock unlockHoldsBack() {
        unlockAnswer = null;
        return this;
    }

    /** Held {@code holds} times already (by anyone). */
    FakeLock heldTimes(int holds) {
        this.holds = holds;
        return this;
    }

    /** What {@link #remainTimeToLiveAsync} answers while held. */
    FakeLock ttl(long ttl) {
        this.ttl = ttl;
        return this;
    }

    /** Reads fail with {@code failure}. */
    FakeLock readsFailWith(Throwable failure) {
        readFailure = failure;
        return this;
    }

    /** Completes the {@code index}-th acquisition with {@code acquired}. */
    void answer(int index, boolean acquired) {
        acquisitions.get(index).future().complete(acquired);
    }

    /** Completes the first held-back unlock. */
    void answerUnlock() {
        heldBackUnlocks.remove(0).complete(null);
    }

    // ---- what the test reads

    List<Acquire> acquisitions() {
        return acquisitions;
    }

    Acquire lastAcquisition() {
        return acquisitions.get(acquisitions.size() - 1);
    }

    /** Holds granted and not given back. */
    int holds() {
        return holds;
    }

    // ---- RLock, asynchronous

    @Override
    public String getName() {
        return name;
    }

    @Override
    public LeaseFactory leases() {
        return Leases.of(this);
    }

    @Override
    public CompletableFuture<Void> lockAsync(long leaseTime, TimeUnit unit, long threadId) {
        return cancelling(acquire(true, -1, leaseTime, unit, threadId).thenApply(acquired -> null),
                lastAcquisition().future());
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync(long waitTime, long leaseTime, TimeUnit unit, long threadId) {
        return cancelling(acquire(false, waitTime, leaseTime, unit, threadId), lastAcquisition().future());
    }

    private CompletableFuture<Boolean> acquire(boolean forever, long waitTime, long leaseTime, TimeUnit unit,
            long threadId) {
        call((forever ? "lock " : "tryLock ") + name);
        CompletableFuture<Boolean> future = acquireAnswer == null ? new CompletableFuture<>() : acquireAnswer.get();
        acquisitions.add(new Acquire(forever, waitTime, leaseTime, unit, threadId, future));
        if (interruptsCaller) {
            Thread.currentThread().interrupt();
        }
        return future.thenApply(acquired -> {
            if (acquired) {
                holds++;
            }
            return acquired;
        });
    }

    /** {@code out}, whose cancel cancels the call's own future, as a real lock's does. */
    private static <T> CompletableFuture<T> cancelling(CompletableFuture<T> out, CompletableFuture<Boolean> call) {
        out.whenComplete((value, failure) -> {
            if (out.isCancelled()) {
                call.cancel(false);
            }
        });
        return out;
    }

    @Override
    public void forgetHolds(long threadId) {
        call("forget " + name);
    }

    @Override
    public boolean countsHolds(long threadId) {
        return holds > 0;
    }

    @Override
    public CompletableFuture<Boolean> extendLeaseAsync(long leaseMillis, long threadId) {
        call("extend " + name + " " + leaseMillis);
        if (leaseRunsOut) {
            leaseRunsOut = false;
            holds = 0;
            return CompletableFuture.completedFuture(false);
        }
        return CompletableFuture.completedFuture(holds > 0);
    }

    @Override
    public CompletableFuture<Void> unlockAsync(long threadId) {
        call("unlock " + name);
        if (holds == 0) {
            return CompletableFuture.failedFuture(new IllegalMonitorStateException(name + " is not held"));
        }
        CompletableFuture<Void> answer;
        if (unlockAnswer == null) {
            answer = new CompletableFuture<>();
            heldBackUnlocks.add(answer);
        } else {
            answer = unlockAnswer.get();
        }
        return answer.thenRun(() -> holds--);
    }

    @Override
    public CompletableFuture<Boolean> forceUnlockAsync() {
        call("forceUnlock " + name);
        boolean held = holds > 0;
        holds = 0;
        return read(held);
    }

    @Override
    public CompletableFuture<Boolean> isLockedAsync() {
        return read(holds > 0);
    }

    @Override
    public CompletableFuture<Integer> getHoldCountAsync(long threadId) {
        return read(holds);
    }

    @Override
    public CompletableFuture<Long> remainTimeToLiveAsync() {
        return read(holds > 0 ? ttl : -2L);
    }

    private <T> CompletableFuture<T> read(T value) {
        return readFailure != null ? CompletableFuture.failedFuture(readFailure) : CompletableFuture.completedFuture(value);
    }

    private void call(String entry) {
        if (throwAtCall != null) {
            throw throwAtCall;
        }
        journal.add(entry);
    }

    // ---- RLock, blocking: not used by the composites

    @Override
    public void lock(long leaseTime, TimeUnit unit) {
        throw unused();
    }

    @Override
    public void lockInterruptibly(long leaseTime, TimeUnit unit) {
        throw unused();
    }

    @Override
    public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) {
        throw unused();
    }

    @Override
    public void lock() {
        throw unused();
    }

    @Override
    public void lockInterruptibly() {
        throw unused();
    }

    @Override
    public boolean tryLock() {
        throw unused();
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) {
        throw unused();
    }

    @Override
    public void unlock() {
        throw unused();
    }

    @Override
    public boolean forceUnlock() {
        throw unused();
    }

    @Override
    public boolean isLocked() {
        throw unused();
    }

    @Override
    public boolean isHeldByCurrentThread() {
        throw unused();
    }

    @Override
    public boolean isHeldByThread(long threadId) {
        throw unused();
    }

    @Override
    public int getHoldCount() {
        throw unused();
    }

    @Override
    public long remainTimeToLive() {
        throw unused();
    }

    @Override
    public Condition newCondition() {
        throw unused();
    }

    private static UnsupportedOperationException unused() {
        return new UnsupportedOperationException("the composites use the asynchronous methods");
    }

    @Override
    public String toString() {
        return "FakeLock[" + name + "]";
    }
}
