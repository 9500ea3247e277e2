package dev.padlock.internal.lease;

import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.protocol.LockProtocol;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The owner ids of leases, and the engine's way to tell a lease's {@link LeaseClock} what Redis
 * said. Lease owners are negative longs, handed out once per JVM as thread ids are, so no thread
 * (whose ids are positive) and no other lease shares one; the engine's reports for any other
 * owner return at once. One registry per JVM: a red lock's components may belong to several
 * clients.
 */
public final class LeaseClocks {
    static final Logger log = LoggerFactory.getLogger(LeaseClocks.class);
    private static final AtomicLong LAST_OWNER = new AtomicLong();
    private static final ConcurrentHashMap<Long, LeaseClock> CLOCKS = new ConcurrentHashMap<>();

    private LeaseClocks() {
    }

    /** A new lease owner id, with its clock: started now, with {@code fixedLeaseMillis} (0 for a watchdog lease). */
    public static long open(EngineClock clock, long fixedLeaseMillis) {
        long owner = LAST_OWNER.decrementAndGet();
        CLOCKS.put(owner, new LeaseClock(clock, clock.nanoTime(), fixedLeaseMillis));
        return owner;
    }

    /** The clock of lease owner {@code owner}; null once closed. */
    public static LeaseClock clockOf(long owner) {
        return CLOCKS.get(owner);
    }

    /** Forgets lease owner {@code owner}: it never held, or it is released. */
    public static void close(long owner) {
        LeaseClock clock = CLOCKS.remove(owner);
        if (clock != null) {
            clock.released();
        }
    }

    /** Whether {@code owner} is a lease's owner id rather than a thread's. */
    public static boolean isLease(long owner) {
        return owner < 0;
    }

    /**
     * Redis confirmed that a request sent at {@code sentNanos} (an {@link EngineClock#nanoTime()}
     * reading) set {@code owner}'s TTL on {@code lock} to {@code leaseMillis}: an acquisition, a
     * grant, a hand-off, a renewal or an extension.
     */
    public static void ttlSet(LockProtocol lock, long owner, long sentNanos, long leaseMillis) {
        if (isLease(owner)) {
            LeaseClock clock = CLOCKS.get(owner);
            if (clock != null) {
                clock.ttlSet(lock, sentNanos, leaseMillis);
            }
        }
    }

    /** The watchdog found that {@code owner} no longer holds a lock it renewed. */
    public static void lost(long owner) {
        if (isLease(owner)) {
            LeaseClock clock = CLOCKS.get(owner);
            if (clock != null) {
                clock.lost();
            }
        }
    }

    /** This client deleted the lock {@code name} whoever held it: every lease holding it is lost. */
    public static void forceReleased(String name) {
        for (LeaseClock clock : CLOCKS.values()) {
            if (clock.holds(name)) {
                clock.lost();
            }
        }
    }
}
