package dev.padlock.internal.wakeup;

import dev.padlock.internal.base.Timeouts;
import io.netty.util.Timer;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The waiters of one unlock channel of this client: futures parked until a wake-up or their
 * timeout (on the client's timer), and the watchers told of every message. Thread-safe without a
 * lock: waiters park from their wait loops, wake-ups come from Lettuce I/O threads.
 *
 * <h2>Implementation notes</h2>
 * {@link #wakeOne()} completes one parked waiter or, when none is parked, leaves one permit that
 * the next waiter to park takes at once, so a waiter between its failed attempt and its park
 * cannot miss the message. Permits do not add up. {@link #wakeAll()} completes every parked
 * waiter and counts a broadcast; a waiter parks with the count it has seen and returns at once
 * when the count moved, so a broadcast between its attempt and its park is not lost, for each
 * waiter (a permit would serve only one). A wake-up that reaches a park its waiter is abandoning
 * is passed on, so a waiter that leaves takes none with it.
 */
final class ChannelWaiters {
    /** The registry's logger, so these lines keep their category. */
    private static final Logger log = LoggerFactory.getLogger(WakeUpRegistry.class);

    /** The channel's name, for log lines. */
    private final String name;
    private final Timer timer;
    private final Queue<CompletableFuture<Boolean>> parked;
    /** One wake-up that arrived while nobody was parked. */
    private final AtomicBoolean permit = new AtomicBoolean();
    /** How many times every waiter was woken at once. */
    private final AtomicLong broadcasts = new AtomicLong();
    /** Listeners of every message and resubscription: see {@link WakeUps#watch}. */
    private final List<Runnable> watchers = new CopyOnWriteArrayList<>();

    ChannelWaiters(String name, Timer timer) {
        this(name, timer, new ConcurrentLinkedQueue<>());
    }

    /** With the queue of parked waiters given: tests use it to force an interleaving. */
    ChannelWaiters(String name, Timer timer, Queue<CompletableFuture<Boolean>> parked) {
        this.name = name;
        this.timer = timer;
        this.parked = parked;
    }

    /** The number of broadcasts so far: what a waiter has seen when it reads it before its attempt. */
    long broadcasts() {
        return broadcasts.get();
    }

    /**
     * Parks one waiter until a wake-up or {@code timeoutMillis}: the future completes with
     * {@code true} when woken, {@code false} at the timeout; completing it early with {@code false}
     * abandons the park. It is already {@code true} when a permit was left or the broadcast count
     * moved past {@code seenBroadcasts}.
     */
    CompletableFuture<Boolean> park(long timeoutMillis, long seenBroadcasts) {
        if (broadcasts.get() != seenBroadcasts || permit.getAndSet(false)) {
            return CompletableFuture.completedFuture(true);
        }
        CompletableFuture<Boolean> waiter = new CompletableFuture<>();
        parked.add(waiter);
        if (permit.getAndSet(false)) {
            if (!waiter.complete(true)) {
                wakeOne(); // the permit raced with a direct wake-up: pass it on
            }
        } else if (broadcasts.get() != seenBroadcasts) {
            waiter.complete(true); // a broadcast polled the queue before this waiter joined it
        }
        Timeouts.completeAfter(timer, waiter, false, timeoutMillis, TimeUnit.MILLISECONDS);
        waiter.thenAccept(woken -> {
            if (!woken) {
                parked.remove(waiter);
            }
        });
        return waiter;
    }

    /**
     * Parks one waiter that may leave before it is woken: as {@link #park(long, long)}, and
     * completing the returned future early with {@code false} abandons the park; a wake-up that
     * reached the park as it was abandoned goes to the next waiter. {@code seen} is given the
     * broadcast count once the park ended, before the waiter is told, so a broadcast after that
     * is not lost for its next park.
     */
    CompletableFuture<Boolean> park(long timeoutMillis, long seenBroadcasts, LongConsumer seen) {
        CompletableFuture<Boolean> parked = park(timeoutMillis, seenBroadcasts);
        CompletableFuture<Boolean> out = new CompletableFuture<>();
        parked.whenComplete((woken, failure) -> {
            seen.accept(broadcasts.get());
            boolean wokenNow = Boolean.TRUE.equals(woken);
            if (!out.complete(wokenNow) && wokenNow && (out.isCompletedExceptionally() || !out.join())) {
                // the waiter left between abandoning and this park leaving the line: a wake-up
                // nobody takes would leave the next waiter asleep on a free lock
                wakeOne();
            }
        });
        out.whenComplete((woken, failure) -> parked.complete(false)); // abandoned early
        return out;
    }

    /**
     * Wakes one parked waiter, or leaves the permit. {@link #park} adds its waiter and then
     * looks for the permit; this sets the permit and then looks for a waiter, so a waiter that
     * parked between this poll and this set is not left asleep with the permit unused (a lost
     * wake-up that lasted until the holder's lease ran out).
     */
    void wakeOne() {
        while (true) {
            for (CompletableFuture<Boolean> waiter; (waiter = parked.poll()) != null; ) {
                if (waiter.complete(true)) {
                    return;
                }
            }
            permit.set(true);
            if (parked.isEmpty() || !permit.getAndSet(false)) {
                return; // nobody parked meanwhile, or a parker took the permit itself
            }
        }
    }

    /**
     * Wakes up to {@code count} parked waiters, as many {@link #wakeOne()}s would (a semaphore's
     * release: only as many waiters as there are free permits may proceed), leaving the permit
     * when fewer are parked.
     */
    void wake(long count) {
        long times = Math.min(count, parked.size() + 1L);
        for (long i = 0; i < times; i++) {
            wakeOne();
        }
    }

    /** Wakes every parked waiter, and every waiter that parks without having seen this broadcast. */
    void wakeAll() {
        broadcasts.incrementAndGet();
        for (CompletableFuture<Boolean> waiter; (waiter = parked.poll()) != null; ) {
            waiter.complete(true);
        }
    }

    /** Unused wake-up state goes: a new first waiter has yet to make its attempt. */
    void clearPermit() {
        permit.set(false);
    }

    void addWatcher(Runnable watcher) {
        watchers.add(watcher);
    }

    void removeWatcher(Runnable watcher) {
        watchers.remove(watcher);
    }

    /** Runs every watcher; one that throws is logged and does not keep the others from running. */
    void notifyWatchers() {
        for (Runnable watcher : watchers) {
            try {
                watcher.run();
            } catch (Throwable t) {
                log.error("unlock listener of {} failed", name, t);
            }
        }
    }
}
