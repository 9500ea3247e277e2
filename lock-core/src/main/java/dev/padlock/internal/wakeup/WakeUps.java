package dev.padlock.internal.wakeup;

import dev.padlock.spi.LockKeys;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Where waiters of one client learn that a lock may be free: its unlock channels. Implemented by
 * {@link WakeUpRegistry} on Redis pub/sub; the local queue and the wait loop know only this, so
 * their state machines can be tested without Redis.
 */
public interface WakeUps extends AutoCloseable {

    /**
     * Subscribes to {@code channel}, or shares the subscription this client already has.
     *
     * @throws IllegalStateException when closed
     */
    Subscription subscribe(String channel);

    /**
     * Shares this client's subscription to {@code channel} when Redis has already confirmed it,
     * else returns null without sending anything.
     */
    @Nullable Subscription subscribeIfConfirmed(String channel);

    /**
     * Calls {@code listener} at every unlock message on {@code channel} and every resubscription
     * of it, on an I/O thread, until the watch is closed; the listener must not block.
     *
     * @return the watch, or null when closed
     */
    @Nullable Watch watch(String channel, Runnable listener);

    /**
     * Sets who takes the messages of this client's grant channels ({@link LockKeys#isGrantChannel}),
     * on an I/O thread; the listener must not block. Grant channels wake no parked waiter.
     */
    default void onGrant(java.util.function.Consumer<String> listener) {
    }

    /** Whether Redis has confirmed this client's subscription to {@code channel}. */
    boolean isSubscribed(String channel);

    /** Channels subscribed now, idle ones included; for tests, metrics, and to skip looking for one. */
    int subscribedChannels();

    /** Channels with a waiter or watcher now; for tests and metrics. */
    int channelsInUse();

    boolean isClosed();

    /** The server address, for messages. */
    String address();

    /** Wakes every parked waiter; later subscriptions fail. */
    @Override
    void close();

    /** A waiter's share of a channel subscription. Owned by one wait loop; close it once done. */
    interface Subscription extends AutoCloseable {

        /** Completes when Redis confirmed the subscription. */
        CompletableFuture<Void> ready();

        /** Whether Redis confirmed the subscription, so unlock messages will arrive. */
        boolean isReady();

        /**
         * Parks until an unlock message or {@code timeoutMillis}: {@code true} when woken by a
         * message, {@code false} at the timeout; completing it early with {@code false} abandons it.
         */
        CompletableFuture<Boolean> park(long timeoutMillis);

        @Override
        void close();
    }

    /** A listener's share of a channel subscription: see {@link #watch}. */
    interface Watch extends AutoCloseable {
        /** Completes when Redis confirmed the subscription: messages published after it are heard. */
        CompletableFuture<Void> ready();

        @Override
        void close();
    }
}
