package dev.padlock.internal.renewal;

import dev.padlock.internal.base.EngineClock;
import io.netty.util.Timer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Declares a renewed owner lost when its last confirmed end passes with no renewal answered (a
 * stalled or unreachable Redis), and remembers the owners so told until they acquire the lock again.
 *
 * <p>A check on the client's timer is due at each renewal's last confirmed end; it finds the end
 * moved on (a renewal answered: it checks again then) or the renewal over, or it declares the loss.
 * A renewal paused for a release is lost too: the owner may hold on after that release (an inner
 * one), and nothing says the release landed before the TTL ran out. So is a hold nothing renews
 * (see {@link #watchUnrenewed}), unless released first.
 *
 * <p>A loss told is final for that hold: for the owner the client answers "not held" without
 * waiting for Redis ({@code isHeldByThread} false, an unlock throws), whatever a late reply says.
 * Its field, if Redis still has it (a renewal that landed unanswered may have set its TTL up to one
 * lease after the loss), is renewed no more: it expires by itself, or goes with the owner's
 * unlocks, which are still sent. An owner is forgotten two leases after its loss, when that field
 * is certainly gone and Redis answers "not held" itself.
 */
final class LossOnSilence {
    private static final Logger log = LoggerFactory.getLogger(LossOnSilence.class);

    private final Timer timer;
    private final EngineClock clock;
    private final long leaseMillis;
    /** Told, after the renewal is marked {@code LOST}, on the timer's thread. */
    private final Consumer<Renewal> onLost;
    /** Per owner told of a loss on silence: the nanoTime it may be forgotten. */
    private final ConcurrentHashMap<Owner, Long> told = new ConcurrentHashMap<>();
    /**
     * Holds not renewed, by owner (see {@link #watchUnrenewed}): told lost when their last
     * confirmed end passes, unless released or renewed before.
     */
    private final ConcurrentHashMap<Owner, Renewal> unrenewed = new ConcurrentHashMap<>();
    private volatile boolean closed;

    LossOnSilence(Timer timer, EngineClock clock, long leaseMillis, Consumer<Renewal> onLost) {
        this.timer = timer;
        this.clock = clock;
        this.leaseMillis = leaseMillis;
        this.onLost = onLost;
    }

    /** Checks {@code renewal} at its last confirmed end (a new one, or one whose end came sooner). */
    void watch(Renewal renewal) {
        checkIn(renewal, renewal.leftNanos(clock.nanoTime()));
    }

    /**
     * Watches {@code hold}, which nothing renews (an acquisition sent before its owner was told of
     * a loss, answered after: the owner may take it as lost too), so that its owner is told it lost
     * it at its last confirmed end, unless {@link #endUnrenewed} comes first.
     */
    void watchUnrenewed(Owner key, Renewal hold) {
        Renewal earlier = unrenewed.put(key, hold);
        if (earlier != null) {
            earlier.end();
        }
        watch(hold);
    }

    /** The hold {@link #watchUnrenewed} watches for {@code key} was released, or is renewed from now on. */
    void endUnrenewed(Owner key) {
        Renewal hold = unrenewed.isEmpty() ? null : unrenewed.remove(key);
        if (hold != null) {
            hold.end();
        }
    }

    /** Ends the unrenewed holds of lock {@code name} acquired before {@code sentNanos}: a force unlock sent then. */
    void endUnrenewed(String name, long sentNanos) {
        unrenewed.values().removeIf(hold -> {
            if (hold.protocol.name().equals(name) && hold.acquiredBefore(sentNanos)) {
                hold.end();
                return true;
            }
            return false;
        });
    }

    /** Whether {@code owner} of {@code localKey} was told of a loss on silence and has not acquired it since. */
    boolean toldLost(String localKey, long owner) {
        return !told.isEmpty() && told.containsKey(new Owner(localKey, owner));
    }

    /** {@code owner} holds the lock {@code localKey} again: its new hold answers for itself. */
    void acquired(String localKey, long owner) {
        if (!told.isEmpty()) {
            told.remove(new Owner(localKey, owner));
        }
    }

    /** Forgets the owners whose fields are certainly gone from Redis by now. */
    void prune() {
        if (!told.isEmpty()) {
            long now = clock.nanoTime();
            told.values().removeIf(forgetAt -> now - forgetAt >= 0);
        }
    }

    void close() {
        closed = true;
        told.clear();
        unrenewed.values().forEach(Renewal::end);
        unrenewed.clear();
    }

    private void checkIn(Renewal renewal, long delayNanos) {
        if (!closed) {
            long delay = Math.max(0, delayNanos);
            renewal.silenceCheck(timer.newTimeout(t -> check(renewal), delay, TimeUnit.NANOSECONDS),
                    clock.nanoTime() + delay);
        }
    }

    private void check(Renewal renewal) {
        try {
            long now = clock.nanoTime();
            switch (renewal.state()) {
                case ENDED, LOST -> {
                    // nothing to check
                }
                case ACTIVE, RELEASING -> {
                    if (renewal.markLostOnSilence(now)) {
                        Owner key = new Owner(renewal.protocol.localKey(), renewal.owner);
                        unrenewed.remove(key, renewal);
                        told.put(key, now + TimeUnit.MILLISECONDS.toNanos(2 * leaseMillis));
                        onLost.accept(renewal);
                    } else {
                        checkIn(renewal, renewal.leftNanos(now));
                    }
                }
                default -> throw new IllegalStateException("unknown renewal state " + renewal.state());
            }
        } catch (Throwable t) {
            log.error("watchdog check for an unanswered lease failed", t);
        }
    }
}
