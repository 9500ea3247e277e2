package dev.padlock.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.RLock;
import dev.padlock.RedisUnavailableException;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisServerProcess;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * One thread that makes a test's calls as one owner (a lock's owner is its thread), with a generous
 * bound on each call that catches a hang, and an unlock by it that surely does not land.
 */
final class OwnerThread implements AutoCloseable {
    private final ExecutorService thread = Executors.newSingleThreadExecutor();

    /** Runs {@code call} on the owner's thread: its answer. */
    <T> T call(Callable<T> call) throws Exception {
        return thread.submit(call).get(20, TimeUnit.SECONDS);
    }

    /** Runs {@code action} on the owner's thread. */
    void run(ThrowingRunnable action) throws Exception {
        call(() -> {
            action.run();
            return null;
        });
    }

    /**
     * The owner's unlock of {@code lock} while {@code server} is paused: its answer, or the
     * {@link RedisUnavailableException} it threw. The release script is not on the server: its
     * EVALSHA, read after the timeout, answers NOSCRIPT too late for the EVAL that would follow, so
     * the unlock surely does not land.
     */
    Object unlockThatDoesNotLand(RLock lock, RedisServerProcess server, RedisAdmin admin) throws Exception {
        admin.commands().scriptFlush();
        server.pause();
        try {
            return call(() -> {
                try {
                    lock.unlock();
                    return "unlocked";
                } catch (RedisUnavailableException e) {
                    return e;
                }
            });
        } finally {
            server.resume();
        }
    }

    @Override
    public void close() throws InterruptedException {
        thread.shutdownNow();
        assertThat(thread.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    /** An action that may throw. */
    @FunctionalInterface
    interface ThrowingRunnable {
        void run() throws Exception;
    }
}
