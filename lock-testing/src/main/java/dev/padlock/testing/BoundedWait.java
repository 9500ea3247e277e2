package dev.padlock.testing;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A poll loop bounded both in time (a {@link System#nanoTime()} deadline) and in count, for the
 * topology fixtures. The condition is a supplier of the problem still in the way: {@code null}
 * when satisfied, else a description that ends up in the timeout's message. A condition that
 * throws a {@link RuntimeException} (a node still starting, a connection refused) counts as not
 * satisfied, and the exception is kept as the cause.
 */
final class BoundedWait {

    private static final Duration INTERVAL = Duration.ofMillis(50);

    private BoundedWait() {
    }

    /**
     * Polls {@code problem} every 50 ms until it returns {@code null}.
     *
     * @param what what is awaited, for the message
     * @param bound the most time to wait; at least one poll happens
     * @throws IllegalStateException when {@code bound} passes first, or on interrupt (the
     *     interrupt is re-asserted)
     */
    static void until(String what, Duration bound, Supplier<String> problem) {
        Objects.requireNonNull(what, "what");
        Objects.requireNonNull(bound, "bound");
        Objects.requireNonNull(problem, "problem");
        long maxPolls = Math.max(1, bound.toMillis() / INTERVAL.toMillis() + 1);
        long deadline = System.nanoTime() + bound.toNanos();
        String last = "not checked yet";
        RuntimeException lastFailure = null;
        for (long poll = 0; poll < maxPolls; poll++) {
            try {
                last = problem.get();
                lastFailure = null;
                if (last == null) {
                    return;
                }
            } catch (RuntimeException e) {
                last = e.toString();
                lastFailure = e;
            }
            if (System.nanoTime() - deadline >= 0) {
                break;
            }
            sleep(what);
        }
        throw new IllegalStateException("Timed out after " + bound + " waiting for " + what + ": " + last,
                lastFailure);
    }

    private static void sleep(String what) {
        try {
            Thread.sleep(INTERVAL.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for " + what, e);
        }
    }
}
