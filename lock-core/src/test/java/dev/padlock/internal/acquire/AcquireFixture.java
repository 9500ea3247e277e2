package dev.padlock.internal.acquire;

import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.base.ManualTimer;
import dev.padlock.internal.protocol.OwnerFields;
import dev.padlock.internal.redis.RedisBackend;
import dev.padlock.internal.renewal.Watchdog;
import dev.padlock.internal.script.ScriptRunner;
import dev.padlock.internal.wakeup.WakeUps;
import io.netty.util.Timer;
import java.util.concurrent.CompletableFuture;

/**
 * A client's share of an acquisition without Redis: a {@link ManualTimer} for its timer and clock,
 * {@link HandWakeUps}, a watchdog whose renewals are never answered, and real
 * {@link Abandonments}. {@link #close()} it after each test.
 */
public final class AcquireFixture implements AcquireContext, AutoCloseable {
    public static final long COMMAND_TIMEOUT_MILLIS = 1_000;
    public static final long WATCHDOG_LEASE_MILLIS = 30_000;
    public static final long LOOK_MILLIS = 3_000;

    public final ManualTimer timer = new ManualTimer();
    public final HandWakeUps wakeUps = new HandWakeUps(timer);
    public final Watchdog watchdog = new Watchdog((script, keys, args) -> new CompletableFuture<>(),
            (name, field) -> CompletableFuture.completedFuture(1L), false, WATCHDOG_LEASE_MILLIS, null, Runnable::run,
            (key, owner) -> { }, timer, timer);
    public final Abandonments abandonments = new Abandonments(timer, timer, COMMAND_TIMEOUT_MILLIS);
    private final OwnerFields ownerFields = new OwnerFields("c");

    @Override
    public WakeUps wakeUps() {
        return wakeUps;
    }

    @Override
    public Watchdog watchdog() {
        return watchdog;
    }

    @Override
    public Abandonments abandonments() {
        return abandonments;
    }

    @Override
    public Timer timer() {
        return timer;
    }

    @Override
    public EngineClock clock() {
        return timer;
    }

    @Override
    public long commandTimeoutMillis() {
        return COMMAND_TIMEOUT_MILLIS;
    }

    @Override
    public String clientId() {
        return "c";
    }

    @Override
    public OwnerFields ownerFields() {
        return ownerFields;
    }

    @Override
    public RedisBackend backend() {
        return null;
    }

    @Override
    public ScriptRunner scripts() {
        return null;
    }

    @Override
    public long lookMillis() {
        return LOOK_MILLIS;
    }

    @Override
    public boolean publishCountsListeners() {
        return true;
    }

    @Override
    public boolean grantMessagesConfirm() {
        return true;
    }

    /**
     * Moves time on a millisecond at a time until {@code lock} was sent a call, at most
     * {@code maxMillis}; how long that took, or -1 when nothing was sent.
     */
    public long millisUntilSent(RecordingProtocol lock, long maxMillis) {
        for (long elapsed = 0; elapsed <= maxMillis; elapsed++) {
            if (lock.sent()) {
                return elapsed;
            }
            timer.advance(1);
        }
        return -1;
    }

    @Override
    public void close() {
        watchdog.close();
        abandonments.close();
    }
}
