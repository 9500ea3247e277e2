package dev.padlock.bench;

/**
 * The few lock operations the scenarios use, the same for every library. Times are in
 * milliseconds; the blocking calls are the library's own.
 */
interface BenchLock {

    /** {@code lock(leaseMillis, MILLISECONDS)}: waits without bound, fixed lease. */
    void lock(long leaseMillis);

    /** {@code lock()}: waits without bound, lease renewed by the library's watchdog. */
    void lockWithWatchdog();

    /** {@code tryLock()}: one attempt, watchdog lease. */
    boolean tryLock();

    /** {@code tryLock(waitMillis, leaseMillis, MILLISECONDS)}. */
    boolean tryLock(long waitMillis, long leaseMillis) throws InterruptedException;

    /** {@code unlock()}. */
    void unlock();
}
