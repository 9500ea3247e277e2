package dev.padlock.internal;

import java.util.concurrent.CompletableFuture;

/**
 * How one kind of lock acquires and releases on Redis. The wait loop, the watchdog and the
 * facade are shared by every kind; only this differs.
 */
public interface LockProtocol {

    /** The lock's name, which is also its main key. */
    String name();

    /** The channel its waiters are woken on. */
    String unlockChannel();

    /**
     * One acquisition attempt for {@code threadId}, re-entering when it already holds the lock.
     *
     * @return a future of {@code null} when acquired, else the holder's remaining lease in
     *     milliseconds ({@code -1} when it has no expiry)
     */
    CompletableFuture<Long> tryAcquire(long leaseMillis, long threadId);

    /**
     * Drops one hold of {@code threadId}.
     *
     * @param rearmLeaseMillis the lease to set when holds remain; {@code 0} keeps the current one
     */
    CompletableFuture<Release> release(long threadId, long rearmLeaseMillis);

    /** Deletes the lock whoever holds it; whether it was held. */
    CompletableFuture<Boolean> forceRelease();

    /**
     * Passes the lock from {@code fromThreadId} to {@code toThreadId} of the same client in one
     * call, waking nobody. {@link ReleaseOutcome#RELEASED} means handed over: the successor holds
     * it once with {@code leaseMillis}.
     *
     * @param rearmLeaseMillis as for {@link #release}, when the holder still has holds
     */
    CompletableFuture<ReleaseOutcome> handOff(long fromThreadId, long toThreadId, long leaseMillis, long rearmLeaseMillis);

    /** What a release found. */
    enum ReleaseOutcome {
        /** The owner did not hold the lock; nothing changed. */
        NOT_HELD,
        /** One hold dropped; more remain. */
        STILL_HELD,
        /** The last hold dropped; the lock is free and its waiters were told. */
        RELEASED;

        /** Reads {@code lock_release} and {@code lock_handoff}: nil, 0, or more (released or handed over). */
        static ReleaseOutcome fromScript(Long reply) {
            if (reply == null) {
                return NOT_HELD;
            }
            return reply == 0L ? STILL_HELD : RELEASED;
        }
    }

    /**
     * What a release found, and how many pub/sub subscribers its unlock message reached (0 unless
     * {@link ReleaseOutcome#RELEASED}); this client counts when it is subscribed to the channel.
     */
    record Release(ReleaseOutcome outcome, long listeners) {
        /** Reads {@code lock_release}: nil, 0, or 1 + the subscribers its message reached. */
        static Release fromScript(Long reply) {
            ReleaseOutcome outcome = ReleaseOutcome.fromScript(reply);
            return new Release(outcome, outcome == ReleaseOutcome.RELEASED ? reply - 1 : 0);
        }
    }
}
