package dev.padlock.bench;

/**
 * How the failed attempts of a multi-process scenario are counted: runs of a library's acquire
 * script that returned without the lock (or the permit). Redis only counts calls by command
 * ({@code INFO commandstats}), so each way relies on what the scripts call (Padlock's in lock-lua,
 * Redisson's in {@code RedissonLock}, {@code RedissonFairLock}, {@code RedissonReadLock},
 * {@code RedissonWriteLock} and {@code RedissonSemaphore}); with a fixed lease and no re-entry, as
 * in these scenarios:
 * <ul>
 * <li>plain lock, both libraries: the acquire script ends a failed attempt with {@code PTTL} of
 *     the lock and calls {@code PTTL} nowhere else, nor does the release;
 * <li>fair lock, Padlock: {@code fair_acquire} calls {@code HEXISTS} exactly when it finds the
 *     lock held (by another owner: a failed attempt; by this one: a re-entry or a grant found,
 *     which these scenarios do not make), and no release calls it; Redisson: its script does not always (a waiter that joins the queue behind
 *     another takes its wait from that one's deadline), but it calls {@code HEXISTS} once in
 *     every run that does not take the free lock, and its release once;
 * <li>read-write lock, both: {@code PTTL} is called on success too (Padlock's read acquire
 *     always, Redisson's when readers hold the lock already) and by a read release for every
 *     other reader still holding, so the {@code MONITOR} pass counts the scripts whose last call
 *     is {@code PTTL} of the lock, which is how every failed attempt ends and no other script
 *     (a Padlock reader that yields to a waiting writer ends with {@code PTTL} of the gate,
 *     {@code padlock_rw_gate:{name}}, counted too);
 * <li>semaphore, both: the acquire script ({@code semaphore_acquire.lua}, and Redisson's
 *     {@code RedissonSemaphore.tryAcquireAsync}) calls {@code GET} once and {@code DECRBY} only
 *     when it takes a permit; nothing else of a waiter or a release calls either.
 * </ul>
 */
enum FailedAttempts {

    /** {@code PTTL} calls of the measured window. */
    PTTL_CALLS("PTTL calls") {
        @Override
        double perAcquisition(ServerCost cost, double scriptsEndingWithPttl) {
            return cost.perAcquisition("pttl");
        }
    },
    /** {@code HEXISTS} calls of the measured window. */
    HEXISTS_CALLS("HEXISTS calls") {
        @Override
        double perAcquisition(ServerCost cost, double scriptsEndingWithPttl) {
            return cost.perAcquisition("hexists");
        }
    },
    /** {@code HEXISTS} calls of the measured window less one per release. */
    HEXISTS_BEYOND_RELEASES("HEXISTS calls less one per release") {
        @Override
        double perAcquisition(ServerCost cost, double scriptsEndingWithPttl) {
            return cost.perAcquisition("hexists") - 1;
        }
    },
    /** {@code GET} calls of the measured window less its {@code DECRBY} calls. */
    GETS_BEYOND_DECRBYS("GET calls less DECRBY calls") {
        @Override
        double perAcquisition(ServerCost cost, double scriptsEndingWithPttl) {
            return cost.perAcquisition("get") - cost.perAcquisition("decrby");
        }
    },
    /** Scripts ending with {@code PTTL} of the lock, in the {@code MONITOR} pass. */
    SCRIPTS_ENDING_WITH_PTTL("scripts ending with PTTL of the lock, MONITOR pass") {
        @Override
        double perAcquisition(ServerCost cost, double scriptsEndingWithPttl) {
            return scriptsEndingWithPttl;
        }
    };

    private final String description;

    FailedAttempts(String description) {
        this.description = description;
    }

    /** How {@code library}'s failed attempts on {@code lock} are counted. */
    static FailedAttempts of(LockLibrary library, ContendedLock lock) {
        switch (lock) {
            case LOCK:
                return PTTL_CALLS;
            case FAIR:
                return library instanceof RedissonLibrary ? HEXISTS_BEYOND_RELEASES : HEXISTS_CALLS;
            case READ_WRITE:
                return SCRIPTS_ENDING_WITH_PTTL;
            case SEMAPHORE:
                return GETS_BEYOND_DECRBYS;
            default:
                throw new IllegalArgumentException("Unknown lock " + lock);
        }
    }

    /** What is counted, e.g. {@code PTTL calls}. */
    String description() {
        return description;
    }

    /**
     * Failed attempts per acquisition, from the measured window's {@code cost} or from the
     * {@code MONITOR} pass's scripts ending with {@code PTTL} of the lock, per acquisition of
     * that pass.
     */
    abstract double perAcquisition(ServerCost cost, double scriptsEndingWithPttl);
}
