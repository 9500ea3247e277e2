package dev.padlock.internal.queue;

import dev.padlock.internal.acquire.LockAcquisition;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Polls for a {@link LocalQueue}'s spin waiters (the spin lock, for setups without pub/sub), which
 * do not hear the unlock channel: while one is queued and no head runs, the queue's first owner
 * asks Redis after a back-off that starts at {@link LockAcquisition#MIN_BACK_OFF_MILLIS} and
 * doubles up to {@link LockAcquisition#MAX_BACK_OFF_MILLIS}, as a spin lock polls. The back-off
 * starts over whenever polling stops being wanted.
 *
 * <p>Not thread-safe: guarded by its queue's monitor. A poll runs {@code onDue} on the timer's
 * thread, which takes the monitor, calls {@link #fired()}, and probes the queue.
 */
final class SpinPoller {
    private final Timer timer;
    private final Runnable onDue;
    private @Nullable Timeout poll;
    /** The delay of the next poll. */
    private long nextMillis = LockAcquisition.MIN_BACK_OFF_MILLIS;

    SpinPoller(Timer timer, Runnable onDue) {
        this.timer = timer;
        this.onDue = onDue;
    }

    /**
     * Whether the queue wants polling now: a spin waiter queued and no head running. When it does
     * and no poll is pending, the next is scheduled; when it does not, the pending poll is cancelled.
     */
    void update(boolean wanted) {
        if (!wanted) {
            cancel();
            nextMillis = LockAcquisition.MIN_BACK_OFF_MILLIS;
            return;
        }
        if (poll == null) {
            long millis = nextMillis;
            nextMillis = Math.min(LockAcquisition.MAX_BACK_OFF_MILLIS, nextMillis * 2);
            poll = timer.newTimeout(timeout -> onDue.run(), millis, TimeUnit.MILLISECONDS);
        }
    }

    /** The pending poll fired. */
    void fired() {
        poll = null;
    }

    /** Cancels the pending poll, if any; the back-off stays where it is. */
    void cancel() {
        if (poll != null) {
            poll.cancel();
            poll = null;
        }
    }

    /** Whether a poll is pending; for tests. */
    boolean pending() {
        return poll != null;
    }
}
