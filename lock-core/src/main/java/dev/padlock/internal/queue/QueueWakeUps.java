package dev.padlock.internal.queue;

import dev.padlock.internal.wakeup.WakeUps;
import io.netty.util.Timer;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * What wakes the owners queued in a {@link LocalQueue} (besides a release of this client): the
 * lock's channels while pub/sub waiters queue ({@link ChannelWatches}), and the poll while spin
 * waiters queue and no head runs ({@link SpinPoller}). Each is made when first needed: most queues
 * never see a waiter. An unlock message runs {@code onUnlockMessage}, a poll {@code onSpinPollDue}
 * (on the timer's thread), each a transition of the queue.
 *
 * <p>Not thread-safe: guarded by its queue's monitor.
 */
final class QueueWakeUps {
    private final WakeUps wakeUps;
    private final Timer timer;
    private final Runnable onUnlockMessage;
    private final Runnable onSpinPollDue;
    private @Nullable ChannelWatches watches;
    private @Nullable SpinPoller spinPoller;

    QueueWakeUps(WakeUps wakeUps, Timer timer, Runnable onUnlockMessage, Runnable onSpinPollDue) {
        this.wakeUps = wakeUps;
        this.timer = timer;
        this.onUnlockMessage = onUnlockMessage;
        this.onSpinPollDue = onSpinPollDue;
    }

    /**
     * {@code ticket} queued, or was put back first: it takes the channels it needs. Returns when
     * the unlock channel it began to watch is subscribed, or null (see {@link ChannelWatches#watchFor}).
     */
    @Nullable CompletableFuture<Void> watchFor(Ticket ticket) {
        if (watches == null) {
            watches = new ChannelWatches(wakeUps, onUnlockMessage);
        }
        return watches.watchFor(ticket);
    }

    /**
     * The queue changed: gives the channels back once nobody queues, and polls for spin waiters
     * while one is queued, no head runs and the queue is not retired.
     */
    void update(Tickets tickets, boolean retired) {
        if (tickets.noneQueued() && watches != null) {
            watches.close();
        }
        boolean wanted = tickets.spinWaiterQueued() && !tickets.headRunning() && !retired;
        if (wanted && spinPoller == null) {
            spinPoller = new SpinPoller(timer, onSpinPollDue);
        }
        if (spinPoller != null) {
            spinPoller.update(wanted);
        }
    }

    /** The pending poll fired. */
    void spinPollFired() {
        if (spinPoller != null) {
            spinPoller.fired();
        }
    }

    /** The client is closing: no poll, no channels. */
    void close() {
        if (spinPoller != null) {
            spinPoller.cancel();
        }
        if (watches != null) {
            watches.close();
        }
    }
}
