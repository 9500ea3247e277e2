package dev.padlock.internal.queue;

import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * Notes on Redis since when this client's holders of exclusive locks (plain, spin, fenced) hold,
 * once a hold has lasted {@link #NOTE_AFTER_MILLIS}: a first hold writes nothing but the lock
 * (the three calls Redisson's format needs), so a hold released sooner, as most are, never costs
 * the note, and one that lasts costs one script call ({@code lock_since}), which the
 * {@code padlock} command reads. The note is Redis {@code TIME} less how long the client has seen
 * the hold, so it is off by at most the acquisition's round trip.
 *
 * <p>Rounds run on the client's timer only while some holder's since is still to be noted: the
 * first hold arms one, and a round arms the next while notes remain due. Nothing else runs.
 */
public final class SinceNotes {
    /** How long a hold lasts before its since is noted. */
    public static final long NOTE_AFTER_MILLIS = 1_000;
    /** How often rounds run while notes are due. */
    static final long ROUND_MILLIS = 500;

    private final Timer timer;
    private final LocalQueues queues;
    /** Whether a round is scheduled and has not started its scan. */
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private volatile boolean closed;
    private volatile @Nullable Timeout pending;

    /** Notes the since of {@code queues}' holders, on {@code timer}. */
    public SinceNotes(Timer timer, LocalQueues queues) {
        this.timer = timer;
        this.queues = queues;
        queues.onHoldStarted(() -> arm(NOTE_AFTER_MILLIS));
    }

    /** Stops the rounds; a note in flight completes on its own. */
    public void close() {
        closed = true;
        Timeout round = pending;
        if (round != null) {
            round.cancel();
        }
    }

    /** Whether a round is on the timer; for tests. */
    boolean roundScheduled() {
        return scheduled.get();
    }

    private void arm(long delayMillis) {
        if (!closed && scheduled.compareAndSet(false, true)) {
            try {
                pending = timer.newTimeout(this::round, delayMillis, TimeUnit.MILLISECONDS);
            } catch (IllegalStateException stopped) {
                scheduled.set(false); // the timer stopped: the client is closing
            }
        }
    }

    private void round(Timeout timeout) {
        // cleared before the scan: a hold that starts during it arms the next round itself
        scheduled.set(false);
        if (closed) {
            return;
        }
        if (queues.noteSinces(TimeUnit.MILLISECONDS.toNanos(NOTE_AFTER_MILLIS))) {
            arm(ROUND_MILLIS);
        }
    }
}
