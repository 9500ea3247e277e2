package dev.padlock.internal.lease;

import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.protocol.LockProtocol;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client's leases, by owner id: the engine's way to tell each lease's {@link LeaseClock} what
 * Redis said. Each client has its own, held by its watchdog; a lease of a composite lock is opened
 * on every component's client ({@link ReportsToLeases}).
 *
 * <p>Lease owners are negative longs, handed out once per JVM as thread ids are ({@link #newOwner}),
 * so no thread (whose ids are positive) and no other lease shares one, whichever clients a lease
 * spans; that counter is the only state shared by clients. Reports for any other owner return at
 * once. Thread-safe.
 */
public final class LeaseClocks {
    static final Logger log = LoggerFactory.getLogger(LeaseClocks.class);
    private static final AtomicLong LAST_OWNER = new AtomicLong();
    private final ConcurrentHashMap<Long, LeaseClock> clocks = new ConcurrentHashMap<>();

    /** A new lease owner id. */
    public static long newOwner() {
        return LAST_OWNER.decrementAndGet();
    }

    /** Whether {@code owner} is a lease's owner id rather than a thread's. */
    public static boolean isLease(long owner) {
        return owner < 0;
    }

    /** A clock for a new lease, started now on {@code clock}, with {@code leaseMillis} (fixed, or {@link LeaseMillis#WATCHDOG}). */
    public static LeaseClock start(EngineClock clock, long leaseMillis) {
        return new LeaseClock(clock, clock.nanoTime(), leaseMillis);
    }

    /**
     * A clock for a new lease of a lock that no client reports on: nothing about it is certain
     * ({@code safeFor} is zero), and it reads no clock.
     */
    public static LeaseClock unreported() {
        return new LeaseClock(null, 0, LeaseMillis.WATCHDOG);
    }

    /** Reports about lease owner {@code owner} go to {@code clock} from now on. */
    public void open(long owner, LeaseClock clock) {
        clocks.put(owner, clock);
    }

    /** The clock of lease owner {@code owner}; null when not open here. */
    public @Nullable LeaseClock clockOf(long owner) {
        return clocks.get(owner);
    }

    /** Forgets lease owner {@code owner}: it never held, or it is released. */
    public void close(long owner) {
        clocks.remove(owner);
    }

    /**
     * Redis confirmed that a request sent at {@code sentNanos} (an {@link EngineClock#nanoTime()}
     * reading) set {@code owner}'s TTL on {@code lock} to {@code leaseMillis}: an acquisition, a
     * grant, a hand-off, a renewal or an extension.
     */
    public void ttlSet(LockProtocol lock, long owner, long sentNanos, long leaseMillis) {
        if (isLease(owner)) {
            LeaseClock clock = clocks.get(owner);
            if (clock != null) {
                clock.ttlSet(lock, sentNanos, leaseMillis);
            }
        }
    }

    /** The watchdog found that {@code owner} no longer holds a lock it renewed. */
    public void lost(long owner) {
        if (isLease(owner)) {
            LeaseClock clock = clocks.get(owner);
            if (clock != null) {
                clock.lost();
            }
        }
    }

    /** This client deleted the lock {@code name} whoever held it: every lease holding it is lost. */
    public void forceReleased(String name) {
        for (LeaseClock clock : clocks.values()) {
            if (clock.holds(name)) {
                clock.lost();
            }
        }
    }
}
