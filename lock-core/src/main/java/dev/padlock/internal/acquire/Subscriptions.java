package dev.padlock.internal.acquire;

import static dev.padlock.internal.base.Nulls.castToNonNull;

import dev.padlock.internal.base.Timeouts;
import dev.padlock.internal.protocol.Granting;
import dev.padlock.internal.protocol.LockProtocol;
import dev.padlock.internal.wakeup.WakeUps;
import dev.padlock.internal.wakeup.WakeUps.Subscription;
import io.netty.util.Timer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The channels one acquisition waits on: its owner's unlock channel, where it parks, and, when it
 * takes a place in line, this client's grant channel (see {@link LockAcquisition#grant}). The
 * grant channel is subscribed before the attempt that takes the place: a grant nobody hears is
 * wasted. Owned by the acquisition's loop; {@link #close()} gives them back.
 */
final class Subscriptions {
    /** The longest park while the unlock channel's subscription is not confirmed (pub/sub down). */
    static final long UNCONFIRMED_PARK_MILLIS = 100;

    private final WakeUps wakeUps;
    private final Timer timer;
    private final LockProtocol protocol;
    private final long owner;
    /** The kind's line when the acquisition takes a place in it, and so hears grants; else null. */
    private final @Nullable Granting heardLine;
    private @Nullable Subscription unlock;
    private @Nullable Subscription grants;

    /** @param withGrants whether the acquisition takes a place in line, and so hears grants */
    Subscriptions(WakeUps wakeUps, Timer timer, LockProtocol protocol, long owner, boolean withGrants) {
        this.wakeUps = wakeUps;
        this.timer = timer;
        this.protocol = protocol;
        this.owner = owner;
        this.heardLine = withGrants ? protocol.granting() : null;
    }

    /**
     * Shares the subscriptions this client already has and Redis confirmed (a lock contended
     * recently), sending nothing, so that a failed first attempt can park at once. A client with no
     * channel at all (most uncontended use) has nothing to share, and makes no channel name.
     */
    void takeConfirmed() {
        if (wakeUps.subscribedChannels() == 0) {
            return;
        }
        unlock = wakeUps.subscribeIfConfirmed(protocol.unlockChannel(owner));
        Granting line = heardLine;
        if (line != null) {
            grants = wakeUps.subscribeIfConfirmed(line.grantChannel());
        }
    }

    /** Whether every channel is subscribed (and was confirmed, when shared). */
    boolean complete() {
        return unlock != null && (heardLine == null || grants != null);
    }

    /** Whether grants to this acquisition's place can be heard: the grant channel is subscribed. */
    boolean hearsGrants() {
        return grants != null;
    }

    /**
     * Subscribes to the channels not subscribed yet.
     *
     * @return completes with whether Redis confirmed them all, {@code false} when it refused one or
     *     did not confirm within {@code maxMillis} (on the timer)
     * @throws IllegalStateException when the client is closed
     */
    CompletableFuture<Boolean> subscribe(long maxMillis) {
        if (unlock == null) {
            unlock = wakeUps.subscribe(protocol.unlockChannel(owner));
        }
        Granting line = heardLine;
        if (line != null && grants == null) {
            grants = wakeUps.subscribe(line.grantChannel());
        }
        CompletableFuture<Void> ready = grants == null ? unlock.ready()
                : CompletableFuture.allOf(unlock.ready(), grants.ready());
        CompletableFuture<Boolean> confirmed = new CompletableFuture<>();
        ready.whenComplete((ignored, failure) -> confirmed.complete(failure == null));
        return Timeouts.completeAfter(timer, confirmed, false, maxMillis, TimeUnit.MILLISECONDS);
    }

    /**
     * Parks on the unlock channel: {@code true} when an unlock message woke it, {@code false} after
     * {@code millis}, or after {@link #UNCONFIRMED_PARK_MILLIS} while the subscription is not
     * confirmed, so a waiter still makes progress without messages. Only once {@link #complete()}.
     */
    CompletableFuture<Boolean> park(long millis) {
        Subscription unlock = castToNonNull(this.unlock); // set once complete()
        return unlock.park(unlock.isReady() ? millis : Math.min(millis, UNCONFIRMED_PARK_MILLIS));
    }

    /** Gives the subscriptions back; done before the result completes, so a caller sees none left. */
    void close() {
        if (unlock != null) {
            unlock.close();
            unlock = null;
        }
        if (grants != null) {
            grants.close();
            grants = null;
        }
    }
}
