package dev.padlock.bench;

/**
 * Threads (in this JVM or in worker JVMs) that acquire and release locks in a loop and count
 * their acquisitions. A load is created paused; {@link #resume()} lets it run and
 * {@link #pause()} stops it between two acquisitions, so counts read while paused are exact;
 * {@link #counts()} reads them while it runs.
 */
interface Load extends AutoCloseable {

    /** Lets every thread run (again). */
    void resume();

    /**
     * Stops every thread after its current acquisition and release and waits (bounded) until
     * all are idle.
     *
     * @return the acquisitions so far, one entry per thread
     * @throws IllegalStateException when a thread failed or did not stop in time
     */
    long[] pause();

    /**
     * The acquisitions so far, one entry per thread, read without pausing: an acquisition under
     * way is not in them yet.
     */
    long[] counts();

    /** Stops every thread and releases what the load holds (clients, processes). */
    @Override
    void close();
}
