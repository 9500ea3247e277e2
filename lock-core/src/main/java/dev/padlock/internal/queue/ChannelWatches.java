package dev.padlock.internal.queue;

import dev.padlock.internal.protocol.Granting;
import dev.padlock.internal.wakeup.WakeUps;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * This client's shares of a lock's channels while owners queue for it in a {@link LocalQueue}:
 * <ul>
 *   <li>the unlock channel, for pub/sub waiters: a message there (another client's force unlock,
 *       say) or a resubscription runs {@code onUnlockMessage}, which makes the first queued owner
 *       ask Redis, even while this client believes it holds the lock;</li>
 *   <li>the client's grant channel, for kinds that {@linkplain
 *       dev.padlock.internal.protocol.LockProtocol#granting() grant}: so a turn this client was put
 *       back in line for is heard between two heads (the messages themselves reach
 *       {@link LocalQueues#onGranted}; a head that waits listens itself, see
 *       {@link dev.padlock.internal.acquire.LockAcquisition}).</li>
 * </ul>
 * Spin waiters take neither. Not thread-safe: guarded by its queue's monitor.
 */
final class ChannelWatches {
    private final WakeUps wakeUps;
    private final Runnable onUnlockMessage;
    private WakeUps.@Nullable Watch unlockWatch;
    private WakeUps.@Nullable Watch grantWatch;

    ChannelWatches(WakeUps wakeUps, Runnable onUnlockMessage) {
        this.wakeUps = wakeUps;
        this.onUnlockMessage = onUnlockMessage;
    }

    /**
     * {@code ticket} queued: takes the channels it needs that are not watched yet. Returns when the
     * unlock channel's watch it took is subscribed, or null when it took none (already watched, a
     * spin waiter, the client closed).
     */
    @Nullable CompletableFuture<Void> watchFor(Ticket ticket) {
        if (ticket.spin) {
            return null;
        }
        CompletableFuture<Void> subscribed = null;
        if (unlockWatch == null) {
            unlockWatch = wakeUps.watch(ticket.protocol.unlockChannel(ticket.owner), onUnlockMessage);
            subscribed = unlockWatch == null ? null : unlockWatch.ready();
        }
        Granting granting = ticket.protocol.granting();
        if (grantWatch == null && granting != null) {
            grantWatch = wakeUps.watch(granting.grantChannel(), () -> { });
        }
        return subscribed;
    }

    /** Nobody queues any more: gives both shares back. */
    void close() {
        if (unlockWatch != null) {
            unlockWatch.close();
            unlockWatch = null;
        }
        if (grantWatch != null) {
            grantWatch.close();
            grantWatch = null;
        }
    }
}
