package dev.padlock.internal.lock;

import dev.padlock.LeaseFactory;
import dev.padlock.LockObserver;
import dev.padlock.RLock;
import dev.padlock.RedisUnavailableException;
import dev.padlock.internal.acquire.AcquirePath;
import dev.padlock.internal.acquire.LateCancels;
import dev.padlock.internal.acquire.LockAcquisition;
import dev.padlock.internal.acquire.PendingAcquire;
import dev.padlock.internal.base.CallBound;
import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.base.Require;
import dev.padlock.internal.composite.BatchComponent;
import dev.padlock.internal.composite.HoldsForgetting;
import dev.padlock.internal.composite.RoundAttempts;
import dev.padlock.internal.composite.ToldLosses;
import dev.padlock.internal.lease.LeaseClocks;
import dev.padlock.internal.lease.LeaseExtending;
import dev.padlock.internal.lease.LeaseMillis;
import dev.padlock.internal.lease.Leases;
import dev.padlock.internal.lease.ReportsToLeases;
import dev.padlock.internal.observe.Observing;
import dev.padlock.internal.protocol.ExclusiveLockProtocol;
import dev.padlock.internal.protocol.LockProtocol;
import dev.padlock.internal.protocol.LockProtocol.ReleaseOutcome;
import dev.padlock.internal.redis.RedisErrors;
import dev.padlock.internal.renewal.Watchdog;
import io.lettuce.core.ScriptOutputType;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The {@link RLock} facade over a {@link LockProtocol}: argument checks, owner ids, the watchdog
 * bookkeeping around acquire and release, and the blocking methods, which wait on the same
 * asynchronous core as the asynchronous ones, through {@link BlockingWaits}.
 */
public final class RedisLock implements RLock, LeaseExtending, HoldsForgetting, ToldLosses, ReportsToLeases, CallBound,
        RoundAttempts, BatchComponent {
    private final LockProtocol protocol;
    private final LockServices services;
    /** How acquisitions and releases reach Redis: chosen once, from what the kind can do. */
    private final AcquirePath path;
    private final String kind;
    private final LockObserver.Kind observedKind;
    private final BlockingWaits waits;
    private final AsyncDeadlines deadlines;
    /** A plain lock's part in a multi lock's one call (no spin, no replica acknowledgements); else null. */
    private final BatchComponent.@Nullable Member batchMember;
    /** {@link #unconfirmed(Throwable, long)}, made once: an unlock makes no object for its failure. */
    private final BlockingWaits.OwnersFailure unconfirmed = this::unconfirmed;

    /**
     * @param spin wait by back-off between attempts (the spin lock) instead of on pub/sub
     * @param kind what {@link #toString()} calls this lock: {@code lock}, {@code fair}, ...
     */
    public RedisLock(LockProtocol protocol, LockServices services, boolean spin, String kind) {
        this.protocol = services.withAcknowledgements(protocol);
        this.services = services;
        this.path = RedisPath.of(this.protocol, services, spin);
        this.kind = kind;
        this.observedKind = LockObserver.Kind.valueOf(kind.toUpperCase(Locale.ROOT));
        this.waits = BlockingWaits.of(protocol.name(), services);
        this.deadlines = new AsyncDeadlines(waits, services.timer(), services.commandTimeoutMillis());
        this.batchMember = !spin && "lock".equals(kind) && this.protocol instanceof ExclusiveLockProtocol
                ? new BatchComponent.Member(this.protocol, services, services.queues(), services.observing(), observedKind)
                : null;
    }

    @Override
    public BatchComponent.@Nullable Member batchMember() {
        return batchMember;
    }

    @Override
    public String getName() {
        return protocol.name();
    }

    @Override
    public LeaseFactory leases() {
        return Leases.of(this);
    }

    @Override
    public long graceNanos() {
        return TimeUnit.MILLISECONDS.toNanos(2 * services.commandTimeoutMillis());
    }

    @Override
    public String address() {
        return services.address();
    }

    // ---- blocking acquire

    @Override
    public void lock() {
        lock(LeaseMillis.WATCHDOG, TimeUnit.MILLISECONDS);
    }

    @Override
    public void lock(long leaseTime, TimeUnit unit) {
        Require.leaseTime(leaseTime, unit);
        waits.awaitUninterruptibly(acquire(LockAcquisition.FOREVER, leaseTime, unit, currentThreadId()), "lock");
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        lockInterruptibly(LeaseMillis.WATCHDOG, TimeUnit.MILLISECONDS);
    }

    @Override
    public void lockInterruptibly(long leaseTime, TimeUnit unit) throws InterruptedException {
        Require.leaseTime(leaseTime, unit);
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        waits.await(acquire(LockAcquisition.FOREVER, leaseTime, unit, currentThreadId()), LockAcquisition.FOREVER,
                "lockInterruptibly");
    }

    @Override
    public boolean tryLock() {
        return waits.awaitOneAttempt(acquire(0, LeaseMillis.WATCHDOG, TimeUnit.MILLISECONDS, currentThreadId()), "tryLock");
    }

    @Override
    public boolean tryLock(long waitTime, TimeUnit unit) throws InterruptedException {
        return tryLock(waitTime, LeaseMillis.WATCHDOG, unit);
    }

    @Override
    public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        Require.leaseTime(leaseTime, unit);
        Require.waitTime(waitTime);
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        long waitNanos = unit.toNanos(waitTime);
        return waits.await(acquire(waitNanos, leaseTime, unit, currentThreadId()), waitNanos, "tryLock");
    }

    // ---- asynchronous acquire

    @Override
    public CompletableFuture<Void> lockAsync(long leaseTime, TimeUnit unit, long threadId) {
        Require.leaseTime(leaseTime, unit);
        return linked(acquire(LockAcquisition.FOREVER, leaseTime, unit, threadId), LockAcquisition.FOREVER, threadId,
                "lock", acquired -> null);
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync(long waitTime, long leaseTime, TimeUnit unit, long threadId) {
        Require.leaseTime(leaseTime, unit);
        Require.waitTime(waitTime);
        long waitNanos = unit.toNanos(waitTime);
        return linked(acquire(waitNanos, leaseTime, unit, threadId), waitNanos, threadId, "tryLock",
                acquired -> acquired);
    }

    /** Starts an acquisition on this lock's {@link AcquirePath}; watched when the client has an observer. */
    PendingAcquire acquire(long waitNanos, long leaseTime, TimeUnit unit, long threadId) {
        Observing observing = services.observing();
        if (observing == null) {
            return start(waitNanos, leaseTime, unit, threadId);
        }
        long startNanos = services.clock().nanoTime();
        return observing.started(start(waitNanos, leaseTime, unit, threadId), protocol, observedKind, threadId,
                waitNanos, startNanos);
    }

    private PendingAcquire start(long waitNanos, long leaseTime, TimeUnit unit, long threadId) {
        Require.state(!services.wakeUps().isClosed(), "the LockClient is closed");
        if (waitNanos <= 0) {
            // one attempt, which a connection known to be down would only ride out for nothing
            Throwable unreachable = services.backend().unreachable();
            if (unreachable != null) {
                return FailedAcquire.of(services.backend().translate(unreachable, "attempt on '" + getName()
                        + "' (the connection is down; reconnecting)"));
            }
        }
        return path.acquire(threadId, LeaseMillis.of(leaseTime, unit), waitNanos);
    }

    @Override
    public CompletableFuture<Boolean> extendLeaseAsync(long leaseMillis, long threadId) {
        Require.leaseTime(leaseMillis, TimeUnit.MILLISECONDS);
        Require.state(!services.wakeUps().isClosed(), "the LockClient is closed");
        long sentNanos = services.clock().nanoTime();
        return protocol.renew(services.scripts(), threadId, leaseMillis).thenApply(extended -> {
            if (extended) {
                services.watchdog().onExtended(protocol, threadId, leaseMillis, sentNanos);
            }
            return extended;
        });
    }

    // ---- release

    @Override
    public void unlock() {
        long threadId = currentThreadId();
        // the release itself is waited for, its outcome read here: no stage for the caller's answer
        ReleaseOutcome outcome = waits.join(release(threadId), "unlock", unconfirmed, threadId);
        if (outcome == ReleaseOutcome.NOT_HELD) {
            throw notHeld(threadId);
        }
    }

    @Override
    public CompletableFuture<Void> unlockAsync(long threadId) {
        CompletableFuture<ReleaseOutcome> release = release(threadId);
        // one stage for the reply (as settle, with the unconfirmed failure): this runs on every unlock
        CompletableFuture<Void> unlocked = new CompletableFuture<>();
        release.whenComplete((outcome, failure) -> {
            if (failure != null) {
                unlocked.completeExceptionally(RedisErrors.unwrap(unconfirmed(failure, threadId)));
            } else if (outcome == ReleaseOutcome.NOT_HELD) {
                unlocked.completeExceptionally(notHeld(threadId));
            } else {
                unlocked.complete(null);
            }
        });
        return unlocked;
    }

    /**
     * Releases one hold of {@code threadId}, on this lock's {@link AcquirePath}. An
     * owner told that its lease ran out unanswered (see {@link Watchdog#toldLostOnSilence}) holds
     * nothing: it is answered "not held" at once. The release is still sent, unawaited, as an
     * unlock after a loss Redis reported would be: a count its lost hold left on Redis (a renewal
     * that landed unanswered) goes now, before a later acquisition of the owner, sent after it,
     * could count it as a re-entry.
     */
    private CompletableFuture<ReleaseOutcome> release(long threadId) {
        Require.state(!services.wakeUps().isClosed(), "the LockClient is closed");
        boolean lost = services.watchdog().toldLostOnSilence(protocol, threadId);
        CompletableFuture<ReleaseOutcome> sent = path.release(threadId);
        CompletableFuture<ReleaseOutcome> release =
                lost ? CompletableFuture.completedFuture(ReleaseOutcome.NOT_HELD) : sent;
        Observing observing = services.observing();
        return observing == null ? release : observing.release(release, protocol, threadId);
    }

    private IllegalMonitorStateException notHeld(long threadId) {
        return new IllegalMonitorStateException("lock '" + getName() + "' is not held by "
                + protocol.ownerField(threadId) + " (never acquired, already unlocked, or its lease ran out)");
    }

    /**
     * A release whose reply was lost may or may not have landed: the exception says so. The
     * owner's last hold is no longer renewed, so at worst it lasts until its lease runs out; one of
     * several is given back if Redis still counts it, and the others stay held.
     */
    private Throwable unconfirmed(Throwable failure, long threadId) {
        Throwable cause = RedisErrors.unwrap(failure);
        if (!(cause instanceof RedisUnavailableException)) {
            return cause;
        }
        return new RedisUnavailableException("the unlock of '" + getName() + "' by " + protocol.ownerField(threadId)
                + " could not be confirmed: if it was its last hold and did not land, the hold lasts until its lease"
                + " runs out (this client no longer renews it); a hold of several is given back once Redis answers: "
                + cause.getMessage(), cause);
    }

    @Override
    public List<LeaseClocks> leaseClocks() {
        return List.of(services.watchdog().leaseClocks());
    }

    @Override
    public EngineClock engineClock() {
        return services.clock();
    }

    @Override
    public boolean toldLostSince(long threadId, long sinceNanos) {
        return services.watchdog().toldLostSince(protocol, threadId, sinceNanos);
    }

    @Override
    public void forgetHolds(long threadId) {
        if (countsHolds(threadId)) {
            return; // holds the owner was told of, which it unlocks itself
        }
        services.watchdog().forget(protocol, threadId);
        String localKey = protocol.localKey();
        services.queues().onLeaseLost(localKey, threadId);
        services.grantWaits().leaseLost(localKey, threadId);
        services.grantWaits().unlockUnconfirmed(protocol, threadId);
    }

    @Override
    public boolean countsHolds(long threadId) {
        return path.counts(threadId);
    }

    @Override
    public boolean forceUnlock() {
        return waits.join(forceUnlockAsync(), "forceUnlock");
    }

    @Override
    public CompletableFuture<Boolean> forceUnlockAsync() {
        Require.state(!services.wakeUps().isClosed(), "the LockClient is closed");
        CompletableFuture<Boolean> reply = path.forceUnlock(() -> {
            long sentNanos = services.clock().nanoTime();
            // renewals stop only for a lock that was deleted: a force unlock that found nothing (the read
            // side of a lock in write mode, say) leaves this client's holders renewed; nor do those told
            // they hold after it was sent, who may have acquired after it ran
            return protocol.forceRelease().whenComplete((released, failure) -> {
                if (failure == null && released) {
                    services.watchdog().cancelAll(protocol.name(), sentNanos);
                    services.grantWaits().forceReleased(protocol.localKey(), sentNanos);
                }
            });
        });
        return settle(reply, released -> released);
    }

    // ---- state reads

    @Override
    public boolean isLocked() {
        return waits.join(isLockedAsync(), "isLocked");
    }

    @Override
    public CompletableFuture<Boolean> isLockedAsync() {
        return read("isLocked", protocol.isLocked(), locked -> locked);
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return isHeldByThread(currentThreadId());
    }

    /** False without asking Redis for an owner told that its lease ran out unanswered. */
    @Override
    public boolean isHeldByThread(long threadId) {
        if (services.watchdog().toldLostOnSilence(protocol, threadId)) {
            return false;
        }
        return waits.join(read("HEXISTS", services.backend().commands()
                .hexists(getName(), protocol.ownerField(threadId)), held -> held), "isHeldByThread");
    }

    @Override
    public int getHoldCount() {
        return waits.join(getHoldCountAsync(currentThreadId()), "getHoldCount");
    }

    @Override
    public CompletableFuture<Integer> getHoldCountAsync(long threadId) {
        return read("HGET", services.backend().commands().hget(getName(), protocol.ownerField(threadId)),
                count -> count == null ? 0 : Integer.parseInt(count));
    }

    @Override
    public long remainTimeToLive() {
        return waits.join(remainTimeToLiveAsync(), "remainTimeToLive");
    }

    @Override
    public CompletableFuture<Long> remainTimeToLiveAsync() {
        return read("PTTL", services.backend().commands().pttl(getName()), ttl -> ttl);
    }

    /** @throws UnsupportedOperationException always: a condition would need a distributed wait set */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("RLock does not support conditions");
    }

    @Override
    public String toString() {
        return "RLock(" + kind + ")[" + getName() + "]";
    }

    // ---- helpers

    private static long currentThreadId() {
        return Thread.currentThread().getId();
    }

    /** How this lock's blocking methods wait. */
    BlockingWaits waits() {
        return waits;
    }

    <T, R> CompletableFuture<R> read(String command, CompletionStage<T> reply, Function<T, R> map) {
        Require.state(!services.wakeUps().isClosed(), "the LockClient is closed");
        return settle(reply.toCompletableFuture().exceptionallyCompose(failure -> CompletableFuture.failedFuture(
                RedisErrors.translate(failure, command + " on '" + getName() + "'", services.address()))), map);
    }

    /**
     * A future completed from {@code source} through {@code map}, holding the bare exception
     * (not a {@code CompletionException}), so callers see {@link IllegalMonitorStateException}
     * and Padlock's exceptions as they are.
     */
    static <T, R> CompletableFuture<R> settle(CompletableFuture<T> source, Function<T, R> map) {
        CompletableFuture<R> out = new CompletableFuture<>();
        source.whenComplete((value, failure) -> {
            if (failure != null) {
                out.completeExceptionally(RedisErrors.unwrap(failure));
                return;
            }
            try {
                out.complete(map.apply(value));
            } catch (RuntimeException e) {
                out.completeExceptionally(e);
            }
        });
        return out;
    }

    @Override
    public CompletableFuture<Boolean> tryOnceAsync(long leaseMillis, long threadId) {
        Require.leaseTime(leaseMillis, TimeUnit.MILLISECONDS);
        return linked(acquire(0, leaseMillis, TimeUnit.MILLISECONDS, threadId), LockAcquisition.FOREVER, threadId,
                "tryLock", acquired -> acquired);
    }

    /**
     * As {@link #settle} over the acquisition's {@linkplain PendingAcquire#reported() reported}
     * result, failed with {@link dev.padlock.RedisUnavailableException} at the contract's bound
     * ({@link AsyncDeadlines}); cancelling the returned future cancels the acquisition, or gives back
     * the hold of {@code threadId} it got when the cancel came too late (see
     * {@link PendingAcquire#cancelTooLate}).
     *
     * @param waitNanos the wait the acquisition was started with
     */
    <R> CompletableFuture<R> linked(PendingAcquire acquisition, long waitNanos, long threadId, String operation,
            Function<Boolean, R> map) {
        CompletableFuture<R> out = settle(deadlines.bounded(acquisition, waitNanos, operation), map);
        LateCancels.link(out, acquisition, () -> unlockAsync(threadId),
                () -> "lock '" + getName() + "' of " + protocol.ownerField(threadId));
        return out;
    }
}
