package dev.padlock.internal.grant;

import dev.padlock.internal.protocol.LockProtocol;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns between clients for one lock, for kinds that {@linkplain LockProtocol#granting() grant}: when
 * a release puts this client's local queue back in line, and what becomes of a grant nobody here
 * waits for. The queue ({@code queue.LocalQueue}) keeps the state and makes the transitions
 * ({@code onGranted}, {@code release}); this class only decides and sends, and never sees the queue
 * (which sits above this package): it is given what it decides on and how to release.
 *
 * <p>The head's failed claim puts this client in line on Redis with the head ticket's place nonce;
 * the head listens on the client's grant channel while it waits, and the queue while owners queue
 * ({@code queue.ChannelWatches}). A release by another client then passes the lock straight to the
 * head: one message, no attempt. When the queue's hand-off budget ends with owners still queued,
 * the global release puts this client back in line for the first of them, at the tail, as it passes
 * the lock to the next client in line ({@link #nextInLine}, {@code queue.LocalRelease}): clients
 * take turns, each up to the budget. A grant writes the lease the owner asked for, so a granted
 * owner holds as if its own claim had taken the lock.
 *
 * <p>A grant for the head's place goes to the head's acquisition (or to the one about to start). A
 * grant for an owner that holds or has started another acquisition is left to that acquisition's
 * claim, which finds the field. A grant nobody here waits for any more is taken over by this client
 * and passed on ({@link #passOn}), like a lock whose caller gave up.
 */
public final class GrantTurns {
    private static final Logger log = LoggerFactory.getLogger(GrantTurns.class);

    private GrantTurns() {
    }

    /**
     * The queued owner a global release of {@code protocol}'s lock puts this client back in line for,
     * or null: {@code firstInLine}, the queue's first queued owner that can take a grant (a spin
     * waiter cannot), when the kind grants and no head of this client runs (a running head's place is
     * in line already). Read under the queue's monitor.
     */
    public static <T> @Nullable T nextInLine(LockProtocol protocol, boolean headRunning, @Nullable T firstInLine) {
        return !headRunning && protocol.granting() != null ? firstInLine : null;
    }

    /**
     * This client holds {@code protocol}'s lock for {@code owner}, which no longer waits: release it
     * on Redis with {@code release}, and log a failure (the lease then expires). Called outside the
     * queue's monitor.
     *
     * <p>A {@code late} grant came while another owner of this client holds the lock: a grant
     * message read after a long pause, for a lease that has ended. Redis puts one holder in at a
     * time, so the queue keeps its holder (taking the grant as the holder would forget the real
     * one, whose re-entry would then queue behind its own successor), and the granted field, if
     * Redis still has it, is released alone, with no hand-off.
     */
    public static void passOn(LockProtocol protocol, long owner, boolean late,
            Supplier<? extends CompletionStage<?>> release) {
        log.debug("lock '{}' was granted to {} of this client, which no longer waits: passing it on{}",
                protocol.name(), owner, late ? " (a late grant: another owner holds it here)" : "");
        (late ? protocol.release(owner, 0) : release.get()).whenComplete((outcome, failure) -> {
            if (failure != null) {
                log.warn("could not pass on lock '{}' granted to an owner that no longer waits; its lease "
                        + "will expire: {}", protocol.name(), failure.toString());
            }
        });
    }
}
