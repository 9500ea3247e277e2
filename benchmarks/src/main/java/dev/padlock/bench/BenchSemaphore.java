package dev.padlock.bench;

/**
 * The few semaphore operations the scenarios use, the same for every library: its
 * {@code RSemaphore} calls of the same names, blocking as the library's own are.
 */
interface BenchSemaphore {

    /** {@code trySetPermits(permits)}: whether the count was set (it was not set before). */
    boolean trySetPermits(int permits);

    /** {@code acquire()}: takes one permit, waiting without bound. */
    void acquire() throws InterruptedException;

    /** {@code release()}: gives one permit back. */
    void release();
}
