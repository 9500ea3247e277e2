package dev.padlock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * One permit of an {@link RPermitExpirableSemaphore}, owned by this handle rather than by a
 * thread: any thread may use and release it. On Redis the permit is its id in the semaphore's
 * leases ({@code {<name>}:timeout}), scored by the time its lease ends; a holder that dies gives
 * the permit back when that time passes. A watchdog lease is renewed until it is released; a fixed
 * lease ends by itself.
 *
 * <pre>{@code
 * try (PermitLease permit = exports.acquire()) {
 *     export(permit.safeFor());
 * }
 * }</pre>
 *
 * Instances are thread-safe.
 */
public interface PermitLease extends AutoCloseable {

    /** {@return the permit's id on Redis: 32 hex digits, as Redisson's} */
    String permitId();

    /**
     * How long the lease certainly has before it can end on Redis: counted from the send of the
     * last request that set its end (the acquisition or a renewal), less a drift margin of 1% of
     * the lease plus 2 ms. {@link Duration#ZERO} once that has passed, or once the lease is known
     * lost or released. Reads no clock but this JVM's, and nothing from Redis.
     *
     * @return the time the lease certainly has left
     */
    Duration safeFor();

    /**
     * Gives the permit back.
     *
     * @throws IllegalStateException when the permit no longer holds (its lease ended, or it was
     *     released already)
     */
    void release();

    /**
     * As {@link #release()}, without blocking: the future completes exceptionally with
     * {@link IllegalStateException} when the permit no longer holds.
     *
     * @return a future that completes once Redis confirmed the release
     */
    CompletableFuture<Void> releaseAsync();

    /**
     * Releases the permit the first time it is called; later calls do nothing. A permit that was
     * already lost is not an error here: the loss is logged.
     */
    @Override
    void close();

    /**
     * Runs {@code action} once, off the caller's thread, when this lease is found lost: by its
     * renewal (a watchdog lease), or by a release that found it gone. Added after the loss, it runs
     * at once (still off the caller's thread). A released lease never runs it.
     *
     * @param action what to run on the loss
     */
    void onLost(Runnable action);
}
