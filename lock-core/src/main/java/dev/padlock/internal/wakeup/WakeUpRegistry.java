package dev.padlock.internal.wakeup;

import static dev.padlock.internal.base.Nulls.castToNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.base.Require;
import dev.padlock.internal.base.Timeouts;
import dev.padlock.internal.redis.RedisBackend;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * A client's {@link WakeUps} on Redis pub/sub: the subscriptions to unlock channels and their
 * lifecycle. Each channel's waiters are its {@link ChannelWaiters}; the connection's events reach
 * them through the {@link PubSubRouter}.
 *
 * <h2>Implementation notes</h2>
 * One subscription per channel per client, shared by every waiter of this client and counted:
 * {@link #subscribe} takes a {@link Subscription}, {@link Subscription#close} gives it back. A
 * channel nobody uses any more stays subscribed for an idle time, so a hot lock does not
 * SUBSCRIBE and UNSUBSCRIBE for every wait; idle channels sit in a Caffeine cache that bounds
 * their number and their time, and a channel evicted from it is unsubscribed. Channels in use
 * are never evicted, so local state is bounded by the waits in progress plus the idle bound.
 *
 * <p>Each unlock message wakes one parked waiter of the channel, or leaves it one permit. The
 * message {@code 1} (a read-write lock let someone in) wakes every waiter instead, and so does a
 * resubscription after the pub/sub connection came back, since messages may have been lost
 * meanwhile; so does a change of the Cluster's slot map, once every channel's new subscription is
 * confirmed (sharded subscriptions live on the node that owned the slot).
 *
 * <p>A channel's lifecycle is guarded by its monitor: {@code users} counts open subscriptions,
 * and a retired channel (unsubscribed and out of the map) is never handed out again. UNSUBSCRIBE
 * is sent before the channel leaves the map, so a later SUBSCRIBE of the same name is always sent
 * after it.
 */
public final class WakeUpRegistry implements WakeUps {
    private final RedisBackend backend;
    private final ConcurrentHashMap<String, Channel> channels = new ConcurrentHashMap<>();
    private final Cache<String, Channel> idle;
    private final PubSubRouter router;
    private volatile boolean closed;
    /** The client's timer: parks end on it. */
    private final Timer timer;

    /**
     * @param timer the client's timer: parks end on it, and idle channels are evicted on it
     * @param clock the client's clock, which times the idle channels
     * @param maintenance where the idle cache's upkeep and evictions run: a pool in production,
     *     the caller's thread in a simulation that runs the engine on one thread
     */
    public WakeUpRegistry(RedisBackend backend, Timer timer, EngineClock clock, Executor maintenance,
            Duration idleTimeout, int maxIdleChannels) {
        this.backend = backend;
        this.timer = timer;
        this.idle = Caffeine.newBuilder()
                .expireAfterWrite(idleTimeout)
                .maximumSize(maxIdleChannels)
                .ticker(clock::nanoTime)
                .executor(maintenance)
                // evictions are due on the client's timer, not on a thread of Caffeine's
                .scheduler((executor, task, delay, unit) -> Timeouts.after(timer, delay, unit)
                        .thenRun(() -> executor.execute(task)))
                .removalListener((@Nullable String name, @Nullable Channel channel, RemovalCause cause) -> {
                    if (cause.wasEvicted() && channel != null) {
                        retireIfUnused(channel);
                    }
                })
                .build();
        this.router = new PubSubRouter(this, backend);
        backend.listen(router);
    }

    /** One channel this client subscribes: its waiters, and its subscription's lifecycle. */
    static final class Channel {
        final String name;
        final ChannelWaiters waiters;
        /** Set by the first {@code subscribed} event; later ones are resubscriptions. */
        volatile boolean confirmedOnce;
        // guarded by this:
        /** Open subscriptions and watches. */
        int users;
        /** Unsubscribed and out of the map: never handed out again. */
        boolean retired;
        /** The last SUBSCRIBE sent; null before the first. */
        @Nullable CompletableFuture<Void> ready;

        Channel(String name, Timer timer) {
            this.name = name;
            this.waiters = new ChannelWaiters(name, timer);
        }
    }

    /**
     * Subscribes to {@code channel}, or shares the subscription this client already has.
     *
     * @throws IllegalStateException when the registry is closed
     */
    @Override
    public Subscription subscribe(String channel) {
        Channel shared = share(channel);
        Require.state(shared != null, "the LockClient is closed");
        return new SharedSubscription(castToNonNull(shared));
    }

    /**
     * Calls {@code listener} at every unlock message on {@code channel} and every resubscription of
     * it (messages may have been lost), on a Lettuce I/O thread, until the returned watch is closed;
     * the channel stays subscribed meanwhile. The listener must be short and must not block.
     *
     * @return the watch, or null when the registry is closed
     */
    @Override
    public @Nullable Watch watch(String channel, Runnable listener) {
        Channel shared = share(channel);
        if (shared == null) {
            return null;
        }
        shared.waiters.addWatcher(listener);
        return new SharedWatch(shared, listener);
    }

    /** Counts one more user of {@code name}'s channel, subscribing it when needed; null once closed. */
    private @Nullable Channel share(String name) {
        while (!closed) {
            Channel channel = channels.computeIfAbsent(name, n -> new Channel(n, timer));
            synchronized (channel) {
                if (channel.retired) {
                    continue; // it left the map before its monitor was released
                }
                if (channel.users++ == 0) {
                    revive(channel);
                }
                subscribeIfNeeded(channel);
                return channel;
            }
        }
        return null;
    }

    /**
     * Shares this client's subscription to {@code channel} when Redis has already confirmed it,
     * else returns null without sending anything. A waiter that takes it before its first attempt
     * cannot miss an unlock that follows the attempt, so it needs no second attempt.
     */
    @Override
    public @Nullable Subscription subscribeIfConfirmed(String channel) {
        Channel shared = channels.get(channel);
        if (shared == null || closed) {
            return null;
        }
        synchronized (shared) {
            if (shared.retired || shared.ready == null || !shared.ready.isDone()
                    || shared.ready.isCompletedExceptionally()) {
                return null;
            }
            if (shared.users++ == 0) {
                revive(shared);
            }
            return new SharedSubscription(shared);
        }
    }

    /**
     * An idle channel gets its first waiter again; under its monitor. Unlock messages that came
     * while it was idle are stale for the new waiter, which has yet to make its attempt.
     */
    private void revive(Channel channel) {
        idle.asMap().remove(channel.name, channel);
        channel.waiters.clearPermit();
    }

    /** Sends SUBSCRIBE when it was never sent or failed (a timeout during an outage); under the channel's monitor. */
    private void subscribeIfNeeded(Channel channel) {
        if (channel.ready == null || channel.ready.isCompletedExceptionally()) {
            channel.ready = backend.subscribe(channel.name);
        }
    }

    @Override
    public void onGrant(Consumer<String> listener) {
        router.onGrant(listener);
    }

    /** Channels subscribed now, in use or idle; for tests and metrics. */
    @Override
    public int subscribedChannels() {
        return channels.size();
    }

    /** Whether this client is subscribed to {@code channel} now, in use or idle. */
    @Override
    public boolean isSubscribed(String channel) {
        return channels.containsKey(channel);
    }

    /** Channels with at least one waiter now; for tests and metrics. */
    @Override
    public int channelsInUse() {
        int inUse = 0;
        for (Channel channel : channels.values()) {
            synchronized (channel) {
                if (channel.users > 0) {
                    inUse++;
                }
            }
        }
        return inUse;
    }

    /** The channel subscribed as {@code name}, in use or idle; null when none. For the router. */
    @Nullable Channel channel(String name) {
        return channels.get(name);
    }

    /** Every channel subscribed, in use or idle. For the router. */
    Collection<Channel> channels() {
        return channels.values();
    }

    /**
     * The server dropped {@code channel}'s subscription (its slot moved): whether it is to be
     * subscribed again, since waiters use it. An idle one is forgotten instead, so that its next
     * waiter subscribes anew rather than trusting it; a retired one was this client's UNSUBSCRIBE.
     */
    boolean keepDropped(Channel channel) {
        synchronized (channel) {
            if (channel.retired) {
                return false;
            }
            if (channel.users == 0) {
                channel.retired = true;
                channels.remove(channel.name, channel);
                idle.asMap().remove(channel.name, channel);
                return false;
            }
            return true;
        }
    }

    private void release(Channel channel) {
        boolean retireNow;
        synchronized (channel) {
            if (--channel.users > 0) {
                return;
            }
            retireNow = closed;
            if (!retireNow) {
                idle.put(channel.name, channel);
            }
        }
        if (retireNow) {
            retireIfUnused(channel);
        }
    }

    private void retireIfUnused(Channel channel) {
        synchronized (channel) {
            if (channel.users > 0 || channel.retired) {
                return;
            }
            channel.retired = true;
            if (!closed) {
                backend.unsubscribe(channel.name);
            }
            channels.remove(channel.name, channel);
        }
    }

    /** Wakes every parked waiter; later subscribes fail. The connection is the backend's to close. */
    @Override
    public void close() {
        closed = true;
        idle.invalidateAll();
        for (Channel channel : channels.values()) {
            channel.waiters.wakeAll();
        }
    }

    /** The server address, for messages. */
    @Override
    public String address() {
        return backend.address();
    }

    /** Whether {@link #close()} was called. */
    @Override
    public boolean isClosed() {
        return closed;
    }

    /** A listener's share of a channel subscription: see {@link #watch}. */
    private final class SharedWatch implements Watch {
        private final Channel channel;
        private final Runnable listener;
        private final AtomicBoolean open = new AtomicBoolean(true);

        private SharedWatch(Channel channel, Runnable listener) {
            this.channel = channel;
            this.listener = listener;
        }

        @Override
        public CompletableFuture<Void> ready() {
            synchronized (channel) {
                return castToNonNull(channel.ready); // set when the channel was shared, never unset
            }
        }

        @Override
        public void close() {
            if (open.compareAndSet(true, false)) {
                channel.waiters.removeWatcher(listener);
                release(channel);
            }
        }
    }

    /** A waiter's share of a channel subscription. Owned by one wait loop; close it once done. */
    private final class SharedSubscription implements Subscription {
        private final Channel channel;
        private boolean closedHandle; // confined to the owning wait loop
        /** The channel's broadcast count this waiter has seen; written on an I/O thread too. */
        private volatile long seenBroadcasts;

        private SharedSubscription(Channel channel) {
            this.channel = channel;
            this.seenBroadcasts = channel.waiters.broadcasts();
        }

        /** Completes when Redis confirmed the subscription. */
        @Override
        public CompletableFuture<Void> ready() {
            synchronized (channel) {
                return castToNonNull(channel.ready); // set when the channel was shared, never unset
            }
        }

        /**
         * Whether Redis confirmed the subscription, so unlock messages will arrive. When the
         * SUBSCRIBE failed, it is sent again, so a long wait does not poll for the rest of its time.
         */
        @Override
        public boolean isReady() {
            synchronized (channel) {
                subscribeIfNeeded(channel);
                CompletableFuture<Void> ready = castToNonNull(channel.ready); // set by subscribeIfNeeded
                return ready.isDone() && !ready.isCompletedExceptionally();
            }
        }

        /**
         * Parks until an unlock message or {@code timeoutMillis}. The future completes with
         * {@code true} when woken by a message, {@code false} at the timeout; completing it early
         * with {@code false} abandons the park.
         */
        @Override
        public CompletableFuture<Boolean> park(long timeoutMillis) {
            // the count is read before the waiter's next attempt is sent: a broadcast after it is not lost
            return channel.waiters.park(timeoutMillis, seenBroadcasts, seen -> seenBroadcasts = seen);
        }

        @Override
        public void close() {
            if (!closedHandle) {
                closedHandle = true;
                release(channel);
            }
        }
    }
}
