package dev.padlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Real owners on real threads, each acquiring and releasing on its own thread as a user's code
 * does: holders that keep a lock until {@link #close()}, and waiters that take it when their
 * turn comes and give it back at once. {@link #close()} lets the holders go, so every waiter gets
 * its turn, and joins every thread (interrupting those still waiting after a generous bound).
 */
final class Owners implements AutoCloseable {
    private static final long JOIN_SECONDS = 60;

    /** One side of an owner: acquire or release, run on the owner's thread. */
    @FunctionalInterface
    interface Step {
        void run() throws Exception;
    }

    private final List<Thread> threads = new ArrayList<>();
    private final CountDownLatch letGo = new CountDownLatch(1);

    /** Starts a thread that acquires, then holds until {@link #close()}; returns once it holds. */
    void hold(String what, Step acquire, Step release) throws InterruptedException {
        CountDownLatch held = new CountDownLatch(1);
        start(what, () -> {
            acquire.run();
            try {
                held.countDown();
                letGo.await();
            } finally {
                release.run();
            }
        });
        assertThat(held.await(JOIN_SECONDS, TimeUnit.SECONDS)).as("%s holds within %d s", what, JOIN_SECONDS).isTrue();
    }

    /** Starts a thread that waits for its turn, then releases at once. */
    void waitFor(String what, Step acquire, Step release) {
        start(what, () -> {
            acquire.run();
            release.run();
        });
    }

    private void start(String what, Step body) {
        Thread thread = new Thread(() -> {
            try {
                body.run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // close() gave up waiting for this one
            } catch (Exception e) {
                throw new IllegalStateException(what + " failed", e);
            }
        }, what);
        thread.setDaemon(true);
        threads.add(thread);
        thread.start();
    }

    @Override
    public void close() throws InterruptedException {
        letGo.countDown();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(JOIN_SECONDS);
        for (Thread thread : threads) {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        }
        for (Thread thread : threads) {
            if (thread.isAlive()) {
                thread.interrupt();
                thread.join(TimeUnit.SECONDS.toMillis(10));
            }
        }
    }
}
