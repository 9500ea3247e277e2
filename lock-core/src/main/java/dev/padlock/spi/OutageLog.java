package dev.padlock.spi;

import dev.padlock.LockClient;
import dev.padlock.internal.SpiAccess;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * Logs a Redis outage as an operator wants to read it: one WARN per outage and lock name, with the
 * cause; the stack trace and every repeat at DEBUG; one INFO when that name works again. A job
 * that runs every second through an outage writes two lines, not one stack trace a second.
 *
 * <p>An outage is timed on the clock of the client it is about, never on the system's own.
 *
 * <p>Thread-safe. At most {@value #MAX_NAMES} names are in an outage at once; beyond that each
 * failure is logged at WARN as it comes.
 */
public final class OutageLog {
    static final int MAX_NAMES = 10_000;

    private final Logger log;
    /** A monotonic reading in nanoseconds, as {@link System#nanoTime()}: the client's clock. */
    private final LongSupplier nanoTime;
    private final ConcurrentHashMap<String, Outage> outages = new ConcurrentHashMap<>();

    /**
     * Logs to {@code log} the outages of {@code client}'s calls, timed on its clock.
     *
     * @param log the logger to write to
     * @param client the client whose calls fail and recover
     * @throws IllegalArgumentException when {@code client} was not made by {@link LockClient#connect}
     *     or {@link LockClient#create}
     */
    public OutageLog(Logger log, LockClient client) {
        this(log, SpiAccess.nanoTime(Objects.requireNonNull(client, "client")));
    }

    /**
     * Logs to {@code log}, timing outages on {@code nanoTime}.
     *
     * @param log the logger to write to
     * @param nanoTime a monotonic reading in nanoseconds, as {@link System#nanoTime()}: the clock of
     *     the client whose calls fail and recover
     */
    public OutageLog(Logger log, LongSupplier nanoTime) {
        this.log = Objects.requireNonNull(log, "log");
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
    }

    private static final class Outage {
        final long sinceNanos;
        final AtomicLong failures = new AtomicLong(1);

        Outage(long sinceNanos) {
            this.sinceNanos = sinceNanos;
        }
    }

    /**
     * {@code operation} on {@code name} failed with {@code failure}: WARN when {@code name} was not
     * in an outage, else DEBUG.
     *
     * @param name the lock or other name the operation was on
     * @param operation what failed, for the message
     * @param failure the failure; its cause is named, its stack trace logged at DEBUG
     */
    public void failed(String name, String operation, Throwable failure) {
        boolean tracked = outages.size() < MAX_NAMES || outages.containsKey(name);
        Outage outage = tracked ? outages.get(name) : null;
        if (outage == null && tracked) {
            Outage fresh = new Outage(nanoTime.getAsLong());
            outage = outages.putIfAbsent(name, fresh);
            if (outage == null) {
                log.warn("{} on '{}' failed: {}; Padlock logs once more when it works again (each failure at DEBUG)",
                        operation, name, describe(failure));
                log.debug("{} on '{}' failed", operation, name, failure);
                return;
            }
        }
        if (outage == null) {
            log.warn("{} on '{}' failed: {}", operation, name, describe(failure));
            return;
        }
        outage.failures.incrementAndGet();
        log.debug("{} on '{}' failed again", operation, name, failure);
    }

    /**
     * {@code operation} on {@code name} worked: INFO when {@code name} was in an outage.
     *
     * @param name the name the operation was on
     * @param operation what worked, for the message
     */
    public void succeeded(String name, String operation) {
        if (outages.isEmpty()) {
            return;
        }
        Outage outage = outages.remove(name);
        if (outage != null) {
            log.info("{} on '{}' works again, after {} failure(s) over {} ms", operation, name, outage.failures.get(),
                    TimeUnit.NANOSECONDS.toMillis(nanoTime.getAsLong() - outage.sinceNanos));
        }
    }

    /**
     * Whether {@code name} is in an outage now.
     *
     * @param name the name
     * @return whether its last operation failed
     */
    public boolean isFailing(String name) {
        return outages.containsKey(name);
    }

    private static String describe(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof java.util.concurrent.CompletionException
                || cause instanceof java.util.concurrent.ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause.getClass().getSimpleName() + ": " + cause.getMessage();
    }
}
