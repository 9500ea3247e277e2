package dev.padlock.internal.lease;

import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.protocol.LockProtocol;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * How long one lease certainly holds: for each lock it holds on Redis (one, or each component of
 * a multi or red lock), the earliest moment its TTL can run out, and whether the lease is over
 * (released, or found lost).
 *
 * <p>A request that sets the TTL to L (an acquisition, a grant, a renewal, an extension) runs on
 * Redis after it was sent, so the TTL cannot end before {@code send + L}; a drift margin of 1% of
 * L plus 2 ms is taken off, as Redlock does for clocks that do not tick alike. Only the send time
 * counts: a reply read late (a pause, a slow network) does not lengthen the bound.
 */
public final class LeaseClock {
    static final long MIN_DRIFT_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    /** The clock of the lock's client; null for a lock no client reports on (nothing is certain). */
    private final @Nullable EngineClock clock;
    /** Per lock held: the earliest nanoTime its TTL can end. */
    private final ConcurrentHashMap<LockProtocol, Long> ends = new ConcurrentHashMap<>(2);
    /** The end to use before the engine reported any: 0 (nothing certain) or a fixed lease from the call. */
    private final long fallbackEnd;
    private volatile boolean over;
    private boolean lost;
    private @Nullable List<Runnable> onLost;

    /**
     * @param leaseMillis the lease asked for, fixed or {@link LeaseMillis#WATCHDOG}: until the
     *     engine reports a send, a fixed lease counts from {@code startNanos} (before any request was sent)
     */
    LeaseClock(@Nullable EngineClock clock, long startNanos, long leaseMillis) {
        this.clock = clock;
        this.fallbackEnd = LeaseMillis.isWatchdog(leaseMillis) ? startNanos : endOf(startNanos, leaseMillis);
    }

    /**
     * The earliest moment a TTL of {@code leaseMillis} set by a request sent at {@code sentNanos}
     * can end, drift taken off. A reply read after it is too late to be taken on its own.
     */
    public static long endOf(long sentNanos, long leaseMillis) {
        long leaseNanos = TimeUnit.MILLISECONDS.toNanos(leaseMillis);
        return sentNanos + leaseNanos - leaseNanos / 100 - MIN_DRIFT_NANOS;
    }

    /** A request sent at {@code sentNanos} set the TTL of {@code lock} to {@code leaseMillis}, Redis says. */
    void ttlSet(LockProtocol lock, long sentNanos, long leaseMillis) {
        ends.merge(lock, endOf(sentNanos, leaseMillis), Math::max);
    }

    /** Nanoseconds the lease certainly has left; 0 once over or passed. */
    public long safeForNanos() {
        if (over || clock == null) {
            return 0;
        }
        long end = Long.MAX_VALUE;
        for (long lockEnd : ends.values()) {
            end = Math.min(end, lockEnd);
        }
        if (end == Long.MAX_VALUE) {
            end = fallbackEnd;
        }
        return Math.max(0, end - clock.nanoTime());
    }

    /** Whether the lease holds a component lock named {@code name}. */
    boolean holds(String name) {
        for (LockProtocol lock : ends.keySet()) {
            if (lock.name().equals(name)) {
                return true;
            }
        }
        return false;
    }

    /** The lease is released (or being released): it certainly has nothing left, and is not lost. */
    public void released() {
        synchronized (this) {
            over = true;
            onLost = null;
        }
    }

    /** The lease was found lost: its actions run once, off the caller's thread; no-op once over. */
    public void lost() {
        List<Runnable> actions;
        synchronized (this) {
            if (over) {
                return;
            }
            over = true;
            lost = true;
            actions = onLost;
            onLost = null;
        }
        if (actions != null) {
            actions.forEach(LeaseClock::runAsync);
        }
    }

    /** Runs {@code action} when the lease is lost, at once (off this thread) when it already was. */
    public void onLost(Runnable action) {
        synchronized (this) {
            if (!lost) {
                if (!over) {
                    if (onLost == null) {
                        onLost = new ArrayList<>(1);
                    }
                    onLost.add(action);
                }
                return;
            }
        }
        runAsync(action);
    }

    private static void runAsync(Runnable action) {
        CompletableFuture.runAsync(action).exceptionally(failure -> {
            LeaseClocks.log.error("a lease's onLost action failed", failure);
            return null;
        });
    }
}
