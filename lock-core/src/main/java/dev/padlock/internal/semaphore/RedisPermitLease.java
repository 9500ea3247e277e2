package dev.padlock.internal.semaphore;

import dev.padlock.PermitLease;
import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.redis.RedisErrors;
import dev.padlock.internal.script.LuaScript;
import dev.padlock.internal.script.ScriptRunner;
import io.lettuce.core.ScriptOutputType;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link PermitLease} on Redis: the permit's id in the semaphore's leases. A watchdog lease renews
 * itself every lease/3 on the client's timer ({@code permit_renew.lua}, which never shortens the
 * lease); a renewal that finds the id gone, or a lease whose end passed without a confirmed
 * renewal (Redis silent), is lost, and its {@code onLost} actions run, once, off the caller's
 * thread. {@link #safeFor()} counts from the send of the request that last set the end.
 */
final class RedisPermitLease implements PermitLease {
    private static final Logger log = LoggerFactory.getLogger(RedisPermitLease.class);

    private enum State { HELD, RELEASED, LOST }

    private final String semaphoreName;
    private final String id;
    private final long leaseMillis;
    private final boolean watchdog;
    private final ScriptRunner scripts;
    private final String[] keys;
    private final String publishCommand;
    private final Timer timer;
    private final EngineClock clock;
    private final BlockingCalls calls;
    /** Send time of the last request that set the lease's end: the acquisition or a renewal. */
    private volatile long setAtNanos;
    private final AtomicReference<State> state = new AtomicReference<>(State.HELD);
    private final AtomicBoolean releaseStarted = new AtomicBoolean();
    private final List<Runnable> lossActions = new CopyOnWriteArrayList<>();
    private volatile @Nullable Timeout renewal;

    /**
     * @param keys the count, the leases and the channel
     * @param sentNanos when the acquisition that took the permit was sent
     */
    RedisPermitLease(String semaphoreName, String id, long leaseMillis, boolean watchdog, ScriptRunner scripts,
            String[] keys, String publishCommand, Timer timer, EngineClock clock, BlockingCalls calls, long sentNanos) {
        this.semaphoreName = semaphoreName;
        this.id = id;
        this.leaseMillis = leaseMillis;
        this.watchdog = watchdog;
        this.scripts = scripts;
        this.keys = keys;
        this.publishCommand = publishCommand;
        this.timer = timer;
        this.clock = clock;
        this.calls = calls;
        this.setAtNanos = sentNanos;
    }

    /** Starts the renewals of a watchdog lease. */
    RedisPermitLease start() {
        if (watchdog) {
            scheduleRenewal();
        }
        return this;
    }

    @Override
    public String permitId() {
        return id;
    }

    @Override
    public Duration safeFor() {
        if (state.get() != State.HELD || releaseStarted.get()) {
            return Duration.ZERO;
        }
        long marginMillis = leaseMillis / 100 + 2;
        long left = setAtNanos + TimeUnit.MILLISECONDS.toNanos(leaseMillis - marginMillis) - clock.nanoTime();
        return left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
    }

    private void scheduleRenewal() {
        try {
            renewal = timer.newTimeout(timeout -> renew(), Math.max(1, leaseMillis / 3), TimeUnit.MILLISECONDS);
        } catch (IllegalStateException | RejectedExecutionException stopped) {
            // the client closed: the lease ends on Redis by itself
        }
    }

    private void renew() {
        if (state.get() != State.HELD || releaseStarted.get()) {
            return;
        }
        long sent = clock.nanoTime();
        CompletableFuture<Long> renewed;
        try {
            renewed = scripts.run(LuaScript.PERMIT_RENEW, ScriptOutputType.INTEGER, new String[] {keys[1]}, id,
                    Long.toString(leaseMillis));
        } catch (RuntimeException e) {
            afterFailedRenewal(e);
            return;
        }
        renewed.whenComplete((held, failure) -> {
            if (failure != null) {
                afterFailedRenewal(failure);
            } else if (held != null && held == 1L) {
                if (sent - setAtNanos > 0) {
                    setAtNanos = sent;
                }
                scheduleRenewal();
            } else if (!releaseStarted.get()) {
                lost("its renewal found the permit gone: its lease had ended, or the semaphore was deleted");
            }
        });
    }

    /** Redis did not answer: the next round tries again, unless the lease ended meanwhile (lost on silence). */
    private void afterFailedRenewal(Throwable failure) {
        if (safeFor().isZero() && !releaseStarted.get()) {
            lost("no renewal was confirmed before its lease could end (" + RedisErrors.unwrap(failure).getMessage() + ")");
        } else {
            log.debug("renewal of permit {} of semaphore '{}' failed; again at the next round", id, semaphoreName, failure);
            scheduleRenewal();
        }
    }

    private void lost(String why) {
        if (state.compareAndSet(State.HELD, State.LOST)) {
            log.warn("permit {} of semaphore '{}' was lost: {}", id, semaphoreName, why);
            for (Runnable action : lossActions) {
                if (lossActions.remove(action)) { // once, whatever onLost does meanwhile
                    runOffThread(action);
                }
            }
        }
    }

    private static void runOffThread(Runnable action) {
        CompletableFuture.runAsync(action).whenComplete((ignored, failure) -> {
            if (failure != null) {
                log.error("an onLost action of a permit failed", failure);
            }
        });
    }

    @Override
    public void release() {
        calls.answer(releaseAsync(), "release");
    }

    @Override
    public CompletableFuture<Void> releaseAsync() {
        if (!releaseStarted.compareAndSet(false, true)) {
            return CompletableFuture.failedFuture(new IllegalStateException(
                    "permit " + id + " of semaphore '" + semaphoreName + "' was released already"));
        }
        Timeout scheduled = renewal;
        if (scheduled != null) {
            scheduled.cancel();
        }
        if (state.get() == State.LOST) {
            return CompletableFuture.failedFuture(new IllegalStateException(
                    "permit " + id + " of semaphore '" + semaphoreName + "' no longer holds: it was lost"));
        }
        return scripts.<Long, Void>run(LuaScript.PERMIT_RELEASE, ScriptOutputType.INTEGER, released -> {
            if (released != null && released == 1L) {
                state.compareAndSet(State.HELD, State.RELEASED);
                return null;
            }
            lost("its release found the permit gone");
            throw new IllegalStateException("permit " + id + " of semaphore '" + semaphoreName
                    + "' no longer holds: its lease had ended, or the semaphore was deleted");
        }, keys, id, publishCommand);
    }

    @Override
    public void close() {
        if (releaseStarted.get()) {
            return;
        }
        try {
            release();
        } catch (IllegalStateException e) {
            log.warn("closing permit {} of semaphore '{}': {}", id, semaphoreName, e.getMessage());
        }
    }

    @Override
    public void onLost(Runnable action) {
        lossActions.add(action);
        if (state.get() == State.LOST && lossActions.remove(action)) {
            runOffThread(action);
        }
    }

    @Override
    public String toString() {
        return "PermitLease[" + id + " of " + semaphoreName + ", " + state.get() + "]";
    }
}
