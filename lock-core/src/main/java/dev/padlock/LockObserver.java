package dev.padlock;

import org.jspecify.annotations.Nullable;

/**
 * Told what a {@link LockClient}'s locks do: acquisitions starting and ending, holds ending,
 * lease renewals and losses. Set with {@link LockConfig.Builder#observer(LockObserver)}; metrics
 * and tracing adapters (the {@code lock-micrometer} module) implement it. Every method has a
 * no-op default, so an implementation overrides only what it needs.
 *
 * <p><b>Threads.</b> Methods are called on Padlock's own threads (Redis I/O threads, the client's
 * timer, sometimes the calling thread), once per event, right after the event and before the
 * caller of the lock method is told. They must be quick and must not block or call back into a
 * lock: a slow observer delays every lock of the client. An observer shared by several clients
 * must be thread-safe.
 *
 * <p><b>Failures.</b> An exception thrown by an observer is logged and otherwise ignored; it never
 * changes what a lock does or answers. An observer only watches: whether an owner holds a lock is
 * decided by Redis's replies alone, observer or not.
 *
 * <p><b>Correlation.</b> {@link #acquisitionStarted} may return a context object, handed back to
 * {@link #acquisitionEnded} of the same acquisition; what {@code acquisitionEnded} returns for a
 * new hold is handed back to {@link #released} or {@link #leaseLost} of that hold. Padlock keeps
 * these objects only while the acquisition or hold lasts; they may be {@code null}.
 *
 * <p>With no observer set, locks pay one null check per call and allocate nothing for it.
 */
public interface LockObserver {

    /** The kind of lock, as {@link LockClient} hands them out; {@link #tag()} is its lower-case name. */
    enum Kind {
        /** {@link LockClient#getLock(String)} */
        LOCK,
        /** {@link LockClient#getFairLock(String)} */
        FAIR,
        /** {@link LockClient#getSpinLock(String)} */
        SPIN,
        /** {@link LockClient#getFencedLock(String)} */
        FENCED,
        /** {@link RReadWriteLock#readLock()} */
        READ,
        /** {@link RReadWriteLock#writeLock()} */
        WRITE,
        /** {@link LockClient#getMultiLock(RLock...)} */
        MULTI,
        /** {@link LockClient#getRedLock(RLock...)} */
        RED;

        private final String tag = name().toLowerCase(java.util.Locale.ROOT);

        /** {@return the lower-case name: {@code lock}, {@code fair}, {@code spin}, ...} */
        public String tag() {
            return tag;
        }
    }

    /** How an acquisition ended. */
    enum Outcome {
        /** Redis confirmed the owner holds the lock. */
        ACQUIRED,
        /** Its wait ran out while the lock stayed held by another owner: {@code tryLock(wait, ...)} answered false. */
        TIMED_OUT,
        /**
         * A single attempt without a wait ({@code tryLock()}, or a wait of zero) found the lock held
         * by another owner: not a wait that ran out, so pollers do not look like timeouts.
         */
        BUSY,
        /** The waiting thread was interrupted. */
        INTERRUPTED,
        /** Its future was cancelled. */
        CANCELLED,
        /** It ended with an exception (Redis unreachable, a refusal, the client closed). */
        FAILED
    }

    /** What one watchdog renewal call found for a group of owners. */
    enum RenewalOutcome {
        /** The leases were set again. */
        RENEWED,
        /** The owners no longer held their locks (see {@link #leaseLost}). */
        LOST,
        /** The call failed; the watchdog tries again next period. */
        ERROR
    }

    /**
     * The end of one acquisition.
     *
     * @param lockName the lock's name
     * @param kind the lock's kind
     * @param threadId the owner id (by default the thread id)
     * @param outcome how it ended
     * @param waitNanos from the call to the outcome, in nanoseconds
     * @param localHandOff whether another owner of this client handed the lock over (no wait on Redis)
     * @param reentry whether the owner already held the lock: an acquired re-entry starts no new hold
     */
    record AcquisitionEnd(String lockName, Kind kind, long threadId, Outcome outcome, long waitNanos,
            boolean localHandOff, boolean reentry) {
    }

    /**
     * The end of one hold: the release of its last re-entry, or a release that found it gone.
     *
     * @param lockName the lock's name
     * @param kind the lock's kind
     * @param threadId the owner id
     * @param heldNanos from the acquisition to the end of the hold, in nanoseconds
     * @param lapsed whether the hold had already ended on Redis (lease ran out, force-unlocked, or
     *     unknown after a lost reply)
     */
    record HoldEnd(String lockName, Kind kind, long threadId, long heldNanos, boolean lapsed) {
    }

    /**
     * One observer that tells each of {@code observers}, in order, of every event, each with its own
     * contexts; one that throws is logged and does not keep the others from being told.
     *
     * @param observers the observers, in the order they are told
     * @return one observer over them all
     */
    static LockObserver composite(LockObserver... observers) {
        return dev.padlock.internal.CompositeLockObserver.of(observers);
    }

    /**
     * An acquisition starts (a {@code lock}, {@code tryLock} or asynchronous twin was called).
     *
     * @param lockName the lock's name
     * @param kind the lock's kind
     * @param threadId the owner id (by default the thread id)
     * @return a context handed back to {@link #acquisitionEnded}; may be null
     */
    default @Nullable Object acquisitionStarted(String lockName, Kind kind, long threadId) {
        return null;
    }

    /**
     * An acquisition ended.
     *
     * @param end what ended, and how
     * @param context what {@link #acquisitionStarted} returned
     * @return for a new hold ({@code ACQUIRED}, not a re-entry), a context handed back to
     *     {@link #released} or {@link #leaseLost} when the hold ends; ignored otherwise
     */
    default @Nullable Object acquisitionEnded(AcquisitionEnd end, @Nullable Object context) {
        return null;
    }

    /**
     * A hold ended by an unlock (the last of its re-entries), or an unlock found it had ended.
     *
     * @param end the hold that ended
     * @param holdContext what {@link #acquisitionEnded} returned for the hold
     */
    default void released(HoldEnd end, @Nullable Object holdContext) {
    }

    /**
     * One renewal call of the watchdog came back.
     *
     * @param owners how many owners' leases the answer covers
     * @param outcome what the call found
     */
    default void leasesRenewed(int owners, RenewalOutcome outcome) {
    }

    /**
     * The watchdog found an owner's lease lost (as {@link LeaseLostListener} is told); the hold has
     * ended.
     *
     * @param lockName the lock's name
     * @param kind the lock's kind
     * @param threadId the owner id that held it
     * @param holdContext what {@link #acquisitionEnded} returned for the hold; null when unknown
     */
    default void leaseLost(String lockName, Kind kind, long threadId, @Nullable Object holdContext) {
    }
}
