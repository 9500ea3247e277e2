package dev.padlock.internal.wakeup;

import dev.padlock.internal.redis.RedisBackend;
import dev.padlock.internal.wakeup.WakeUpRegistry.Channel;
import dev.padlock.spi.LockKeys;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes the pub/sub events of one client's connection, on a Lettuce I/O thread: an unlock
 * message to its channel's waiters, a grant message to the grant listener, and a resubscription,
 * a slot map change or a slot moved away to new subscriptions whose confirmation wakes every
 * waiter of the channel (messages may have been lost meanwhile).
 */
final class PubSubRouter implements RedisBackend.PubSubEvents {
    /** The registry's logger, so these lines keep their category. */
    private static final Logger log = LoggerFactory.getLogger(WakeUpRegistry.class);

    private final WakeUpRegistry registry;
    private final RedisBackend backend;
    private volatile Consumer<String> grantListener = message -> { };

    PubSubRouter(WakeUpRegistry registry, RedisBackend backend) {
        this.registry = registry;
        this.backend = backend;
    }

    /** Sets who takes grant messages: see {@link WakeUps#onGrant}. */
    void onGrant(Consumer<String> listener) {
        this.grantListener = listener;
    }

    @Override
    public void message(String name, String message) {
        if (LockKeys.isGrantChannel(name)) {
            try {
                grantListener.accept(message);
            } catch (RuntimeException e) {
                log.error("the grant on {} failed", name, e);
            }
            return;
        }
        Channel channel = registry.channel(name);
        if (channel == null) {
            return;
        }
        if (LockKeys.isSemaphoreChannel(name)) {
            channel.waiters.wake(freePermits(message)); // no herd: as many as may get a permit
        } else if (LockKeys.READ_UNLOCK_MESSAGE.equals(message)) {
            channel.waiters.wakeAll(); // a read-write lock let someone in: every waiter may go
        } else {
            channel.waiters.wakeOne();
        }
        channel.waiters.notifyWatchers();
    }

    /** A semaphore message: the number of free permits (one when it is not a number). */
    private static long freePermits(String message) {
        try {
            return Long.parseLong(message.trim());
        } catch (NumberFormatException notCount) {
            return 1;
        }
    }

    /**
     * Subscribes every channel again, to its slot's owner now. Waiters stay parked (their
     * attempts would only reach a node that is down) until the new subscription is confirmed,
     * then all are woken, since messages may have been lost with the old node; at worst they
     * wake at the holder's lease, as always.
     */
    @Override
    public void topologyChanged() {
        for (Channel channel : registry.channels()) {
            resubscribe(channel);
        }
    }

    /**
     * A node dropped a sharded subscription that waiters still use: its slot moved (a
     * resharding). The slot map is read again, and the channel subscribed on its new owner.
     */
    @Override
    public void shardUnsubscribed(String name) {
        Channel channel = registry.channel(name);
        if (channel == null || registry.isClosed() || !registry.keepDropped(channel)) {
            return;
        }
        log.debug("{} was unsubscribed by the server (its slot moved): subscribing again", name);
        backend.refreshTopology().whenComplete((ok, failure) -> resubscribe(channel));
    }

    /** The first confirmation of a channel is its SUBSCRIBE's; a later one is a resubscription. */
    @Override
    public void subscribed(String name) {
        Channel channel = registry.channel(name);
        if (channel == null) {
            return;
        }
        if (channel.confirmedOnce) {
            log.debug("resubscribed to {}: waking its waiters", name);
            wakeAll(channel);
        } else {
            channel.confirmedOnce = true;
        }
    }

    /** Subscribes {@code channel} again and wakes all its waiters once Redis confirms it. */
    private void resubscribe(Channel channel) {
        if (channel.retired || registry.isClosed()) {
            return;
        }
        backend.subscribe(channel.name).whenComplete((ok, failure) -> {
            if (failure == null) {
                wakeAll(channel);
            } else {
                log.debug("could not subscribe {} again: {}", channel.name, failure.toString());
            }
        });
    }

    private static void wakeAll(Channel channel) {
        channel.waiters.wakeAll();
        channel.waiters.notifyWatchers();
    }
}
