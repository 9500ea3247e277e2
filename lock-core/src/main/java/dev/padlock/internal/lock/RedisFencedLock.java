package dev.padlock.internal.lock;

import dev.padlock.LeaseFactory;
import dev.padlock.RFencedLock;
import dev.padlock.internal.acquire.LockAcquisition;
import dev.padlock.internal.acquire.PendingAcquire;
import dev.padlock.internal.base.CallBound;
import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.base.Require;
import dev.padlock.internal.composite.HoldsForgetting;
import dev.padlock.internal.composite.RoundAttempts;
import dev.padlock.internal.composite.ToldLosses;
import dev.padlock.internal.lease.LeaseClocks;
import dev.padlock.internal.lease.LeaseExtending;
import dev.padlock.internal.lease.LeaseMillis;
import dev.padlock.internal.lease.Leases;
import dev.padlock.internal.lease.ReportsToLeases;
import dev.padlock.internal.protocol.FencedLockProtocol;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import org.jspecify.annotations.Nullable;

/**
 * The {@link RFencedLock}: a {@link RedisLock} over {@link FencedLockProtocol}, whose acquisitions
 * also report the token the acquire script returned.
 */
public final class RedisFencedLock implements RFencedLock, LeaseExtending, HoldsForgetting, ToldLosses, ReportsToLeases, RoundAttempts,
        CallBound {
    private final RedisLock lock;
    private final FencedLockProtocol protocol;

    public RedisFencedLock(String name, LockServices services) {
        this.protocol = new FencedLockProtocol(name, services);
        this.lock = new RedisLock(protocol, services, false, "fenced");
    }

    @Override
    public long lockAndGetToken() {
        return lockAndGetToken(LeaseMillis.WATCHDOG, TimeUnit.MILLISECONDS);
    }

    @Override
    public long lockAndGetToken(long leaseTime, TimeUnit unit) {
        Require.leaseTime(leaseTime, unit);
        PendingAcquire acquisition = lock.acquire(LockAcquisition.FOREVER, leaseTime, unit, currentThreadId());
        lock.waits().awaitUninterruptibly(acquisition, "lockAndGetToken");
        return token(acquisition);
    }

    @Override
    public @Nullable Long tryLockAndGetToken(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        Require.leaseTime(leaseTime, unit);
        Require.waitTime(waitTime);
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        long waitNanos = unit.toNanos(waitTime);
        PendingAcquire acquisition = lock.acquire(waitNanos, leaseTime, unit, currentThreadId());
        return lock.waits().await(acquisition, waitNanos, "tryLockAndGetToken") ? token(acquisition) : null;
    }

    @Override
    public Long getToken() {
        return lock.waits().join(getTokenAsync(), "getToken");
    }

    @Override
    public CompletableFuture<Long> lockAndGetTokenAsync(long leaseTime, TimeUnit unit, long threadId) {
        Require.leaseTime(leaseTime, unit);
        PendingAcquire acquisition = lock.acquire(LockAcquisition.FOREVER, leaseTime, unit, threadId);
        return lock.linked(acquisition, LockAcquisition.FOREVER, threadId, "lockAndGetToken",
                acquired -> token(acquisition));
    }

    @Override
    public CompletableFuture<Long> tryLockAndGetTokenAsync(long waitTime, long leaseTime, TimeUnit unit, long threadId) {
        Require.leaseTime(leaseTime, unit);
        Require.waitTime(waitTime);
        long waitNanos = unit.toNanos(waitTime);
        PendingAcquire acquisition = lock.acquire(waitNanos, leaseTime, unit, threadId);
        return lock.linked(acquisition, waitNanos, threadId, "tryLockAndGetToken",
                acquired -> acquired ? token(acquisition) : null);
    }

    @Override
    public CompletableFuture<Long> getTokenAsync() {
        return lock.read("fenced_token", protocol.token(), token -> token);
    }

    /** A fenced acquisition always reaches Redis, which gives it its token. */
    private static long token(PendingAcquire acquisition) {
        return acquisition.token();
    }

    private static long currentThreadId() {
        return Thread.currentThread().getId();
    }

    // ---- the rest is the plain RLock

    @Override
    public String getName() {
        return lock.getName();
    }

    /** Of this fenced lock, not its plain one: its leases carry their tokens. */
    @Override
    public LeaseFactory leases() {
        return Leases.of(this);
    }

    @Override
    public long graceNanos() {
        return lock.graceNanos();
    }

    @Override
    public String address() {
        return lock.address();
    }

    @Override
    public void lock() {
        lock.lock();
    }

    @Override
    public void lock(long leaseTime, TimeUnit unit) {
        lock.lock(leaseTime, unit);
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        lock.lockInterruptibly();
    }

    @Override
    public void lockInterruptibly(long leaseTime, TimeUnit unit) throws InterruptedException {
        lock.lockInterruptibly(leaseTime, unit);
    }

    @Override
    public boolean tryLock() {
        return lock.tryLock();
    }

    @Override
    public boolean tryLock(long waitTime, TimeUnit unit) throws InterruptedException {
        return lock.tryLock(waitTime, unit);
    }

    @Override
    public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        return lock.tryLock(waitTime, leaseTime, unit);
    }

    @Override
    public void unlock() {
        lock.unlock();
    }

    @Override
    public boolean forceUnlock() {
        return lock.forceUnlock();
    }

    @Override
    public boolean isLocked() {
        return lock.isLocked();
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return lock.isHeldByCurrentThread();
    }

    @Override
    public boolean isHeldByThread(long threadId) {
        return lock.isHeldByThread(threadId);
    }

    @Override
    public int getHoldCount() {
        return lock.getHoldCount();
    }

    @Override
    public long remainTimeToLive() {
        return lock.remainTimeToLive();
    }

    @Override
    public Condition newCondition() {
        return lock.newCondition();
    }

    @Override
    public CompletableFuture<Void> lockAsync(long leaseTime, TimeUnit unit, long threadId) {
        return lock.lockAsync(leaseTime, unit, threadId);
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync(long waitTime, long leaseTime, TimeUnit unit, long threadId) {
        return lock.tryLockAsync(waitTime, leaseTime, unit, threadId);
    }

    @Override
    public CompletableFuture<Void> unlockAsync(long threadId) {
        return lock.unlockAsync(threadId);
    }

    @Override
    public CompletableFuture<Boolean> tryOnceAsync(long leaseMillis, long threadId) {
        return lock.tryOnceAsync(leaseMillis, threadId);
    }

    @Override
    public CompletableFuture<Boolean> extendLeaseAsync(long leaseMillis, long threadId) {
        return lock.extendLeaseAsync(leaseMillis, threadId);
    }

    @Override
    public CompletableFuture<Boolean> forceUnlockAsync() {
        return lock.forceUnlockAsync();
    }

    @Override
    public CompletableFuture<Boolean> isLockedAsync() {
        return lock.isLockedAsync();
    }

    @Override
    public CompletableFuture<Integer> getHoldCountAsync(long threadId) {
        return lock.getHoldCountAsync(threadId);
    }

    @Override
    public CompletableFuture<Long> remainTimeToLiveAsync() {
        return lock.remainTimeToLiveAsync();
    }

    @Override
    public String toString() {
        return lock.toString();
    }

    @Override
    public List<LeaseClocks> leaseClocks() {
        return lock.leaseClocks();
    }

    @Override
    public EngineClock engineClock() {
        return lock.engineClock();
    }

    @Override
    public boolean toldLostSince(long threadId, long sinceNanos) {
        return lock.toldLostSince(threadId, sinceNanos);
    }

    @Override
    public void forgetHolds(long threadId) {
        lock.forgetHolds(threadId);
    }

    @Override
    public boolean countsHolds(long threadId) {
        return lock.countsHolds(threadId);
    }
}
