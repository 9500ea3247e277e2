package dev.padlock.internal.queue;

import dev.padlock.internal.protocol.LockProtocol;
import io.netty.util.Timer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Asks Redis whether a {@link LocalQueue}'s holder still holds, once the first owner queued behind
 * it is subscribed to the lock's unlock channel. While nobody of this client queued, it heard no
 * unlock message: a force unlock (by any client, Redisson's too) of its holder went unheard, and
 * owners queued behind that holder would wait for its lease to end, with the lock free on Redis.
 * Once subscribed, such a message is heard ({@link QueueWakeUps}), so one look after the
 * subscription closes the gap: one {@code HEXISTS} when owners start queueing behind a holder,
 * none per hand-off. A hold that ends without a message (a fixed lease running out, a {@code DEL})
 * is left to {@link HolderLeaseWatch} and the watchdog, as a Redisson waiter waits out the TTL.
 *
 * <p>Takes no lock: the queue's transitions decide under its monitor, and the check and the
 * call go out on the timer's thread and the reply's.
 */
final class HolderCheck {
    private HolderCheck() {
    }

    /** What a check asks: whether {@code owner}'s field is in the lock, sent at the {@code sentAt}-th confirmation. */
    record Due(LockProtocol protocol, long owner, long sentAt) {
    }

    /** The queue's side of a check. */
    interface Transitions {
        /** The check is due: what to ask, or null when nobody queues behind a confirmed holder any more. */
        @Nullable Due holderCheckDue();

        /** Redis says {@code owner} does not hold: the next head, for {@link #run}, when the view changed. */
        @Nullable Ticket onHolderNotFound(long owner, long sentAt);

        /** Runs {@code ticket}'s acquisition as head (none when null), outside the monitor. */
        void run(@Nullable Ticket ticket, boolean head);
    }

    /**
     * Checks the holder on {@code timer}'s thread once {@code subscribed} completes (never under
     * the queue's monitor); a subscription that failed is resubscribed, which wakes the queue anyway.
     */
    static void afterSubscribed(CompletableFuture<Void> subscribed, Timer timer, Transitions queue) {
        subscribed.thenRun(() -> timer.newTimeout(timeout -> check(queue), 0, TimeUnit.MILLISECONDS));
    }

    private static void check(Transitions queue) {
        Due due = queue.holderCheckDue();
        if (due == null) {
            return;
        }
        due.protocol().confirm(due.owner()).whenComplete((attempt, failure) -> {
            // no answer: the holder's release, lease watch or watchdog still corrects the view
            if (failure == null && !attempt.acquired()) {
                queue.run(queue.onHolderNotFound(due.owner(), due.sentAt()), true);
            }
        });
    }
}
