package dev.padlock.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntFunction;

/**
 * A {@link Load} of threads in this JVM, each repeating one {@link Acquisition}. Threads park on
 * this object's monitor while paused.
 *
 * <p>State: {@code state}, {@code idle} and {@code failure} are guarded by {@code this}; each
 * thread writes only its own slot of {@code counts}.
 */
final class LockLoop implements Load {

    /** One acquisition and its release; throws when it did not acquire. */
    interface Acquisition {
        void once() throws InterruptedException;
    }

    private enum State { PAUSED, RUNNING, STOPPED }

    private static final Duration PAUSE_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(30);

    private final AtomicLongArray counts;
    private final List<Thread> threads = new ArrayList<>();

    private State state = State.PAUSED;
    private int idle;
    private Throwable failure;

    /**
     * Starts {@code threadCount} threads, paused; thread {@code i} repeats
     * {@code acquisitions.apply(i)}.
     */
    LockLoop(String name, int threadCount, IntFunction<Acquisition> acquisitions) {
        counts = new AtomicLongArray(threadCount);
        for (int i = 0; i < threadCount; i++) {
            int index = i;
            Acquisition acquisition = acquisitions.apply(i);
            Thread thread = new Thread(() -> run(index, acquisition), name + "-" + i);
            thread.setDaemon(true);
            threads.add(thread);
        }
        threads.forEach(Thread::start);
    }

    @Override
    public synchronized void resume() {
        requireNoFailure();
        if (state == State.PAUSED) {
            state = State.RUNNING;
            notifyAll();
        }
    }

    @Override
    public synchronized long[] pause() {
        if (state == State.RUNNING) {
            state = State.PAUSED;
        }
        long deadline = System.nanoTime() + PAUSE_TIMEOUT.toNanos();
        while (idle < threads.size() && failure == null) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new IllegalStateException((threads.size() - idle) + " of " + threads.size()
                        + " threads did not pause within " + PAUSE_TIMEOUT);
            }
            waitNanos(left);
        }
        requireNoFailure();
        return counts();
    }

    @Override
    public long[] counts() {
        long[] snapshot = new long[counts.length()];
        for (int i = 0; i < snapshot.length; i++) {
            snapshot[i] = counts.get(i);
        }
        return snapshot;
    }

    @Override
    public void close() {
        synchronized (this) {
            state = State.STOPPED;
            notifyAll();
        }
        long deadline = System.nanoTime() + JOIN_TIMEOUT.toNanos();
        for (Thread thread : threads) {
            try {
                thread.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void run(int index, Acquisition acquisition) {
        try {
            while (awaitRunning()) {
                acquisition.once();
                counts.incrementAndGet(index);
            }
        } catch (Throwable e) {
            synchronized (this) {
                if (failure == null) {
                    failure = e;
                }
                notifyAll();
            }
        }
    }

    /** Parks while paused; false once stopped. */
    private synchronized boolean awaitRunning() throws InterruptedException {
        if (state == State.RUNNING) {
            return true;
        }
        idle++;
        notifyAll();
        try {
            while (state == State.PAUSED) {
                wait();
            }
        } finally {
            idle--;
        }
        return state == State.RUNNING;
    }

    private void requireNoFailure() {
        if (failure != null) {
            throw new IllegalStateException("A lock thread failed: " + failure, failure);
        }
    }

    private void waitNanos(long nanos) {
        try {
            wait(Math.max(1, nanos / 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while pausing the load", e);
        }
    }
}
