package dev.padlock.internal.wakeup;

import dev.padlock.internal.base.Timeouts;
import io.netty.util.Timer;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.Scheduler;
import dev.padlock.internal.base.Require;
import dev.padlock.internal.redis.RedisBackend;
import dev.padlock.spi.LockKeys;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pub/sub subscriptions to unlock channels, and the waiters parked on them.
 *
 * <h2>Implementation notes</h2>
 * One subscription per channel per client, shared by every waiter of this client and counted:
 * {@link #subscribe} takes a {@link Subscription}, {@link Subscription#close} gives it back. A
 * channel nobody uses any more stays subscribed for an idle time, so a hot lock does not
 * SUBSCRIBE and UNSUBSCRIBE for every wait; idle channels sit in a Caffeine cache that bounds
 * their number and their time, and a channel evicted from it is unsubscribed. Channels in use
 * are never evicted, so local state is bounded by the waits in progress plus the idle bound.
 *
 * <p>Each unlock message wakes one parked waiter of the channel, or, when none is parked, leaves
 * one permit that the next waiter to park takes at once (a waiter between its failed attempt and
 * its park cannot miss the message). The message {@code 1} (a read-write lock let someone in)
 * wakes every waiter instead, and so does a resubscription after the pub/sub connection came back,
 * since messages may have been lost meanwhile; so does a change of the Cluster's slot map, once
 * every channel's new subscription is confirmed (sharded subscriptions live on the node that owned
 * the slot). Such a broadcast is counted, and a waiter that parks
 * after it without having seen it returns at once, so no waiter of the channel misses it.
 *
 * <p>A channel's lifecycle is guarded by its monitor: {@code users} counts open subscriptions,
 * and a retired channel (unsubscribed and out of the map) is never handed out again. UNSUBSCRIBE
 * is sent before the channel leaves the map, so a later SUBSCRIBE of the same name is always sent
 * after it.
 */
public final class WakeUpRegistry implements WakeUps {
    private static final Logger log = LoggerFactory.getLogger(WakeUpRegistry.class);

    private final RedisBackend backend;
    private final ConcurrentHashMap<String, ChannelWaiters> channels = new ConcurrentHashMap<>();
    private final Cache<String, ChannelWaiters> idle;
    private volatile boolean closed;
    /** The client's timer: parks end on it. */
    private final Timer timer;
    private volatile Consumer<String> grantListener = message -> { };

    public WakeUpRegistry(RedisBackend backend, Timer timer, Duration idleTimeout, int maxIdleChannels) {
        this.backend = backend;
        this.timer = timer;
        this.idle = Caffeine.newBuilder()
                .expireAfterWrite(idleTimeout)
                .maximumSize(maxIdleChannels)
                .scheduler(Scheduler.systemScheduler())
                .removalListener((String name, ChannelWaiters channel, RemovalCause cause) -> {
                    if (cause.wasEvicted() && channel != null) {
                        retireIfUnused(channel);
                    }
                })
                .build();
        backend.listen(new UnlockListener());
    }

    /**
     * Subscribes to {@code channel}, or shares the subscription this client already has.
     *
     * @throws IllegalStateException when the registry is closed
     */
    @Override
    public Subscription subscribe(String channel) {
        while (true) {
            Require.state(!closed, "the LockClient is closed");
            ChannelWaiters waiters = channels.computeIfAbsent(channel, name -> new ChannelWaiters(name, timer));
            synchronized (waiters) {
                if (waiters.retired) {
                    continue; // it left the map before its monitor was released
                }
                if (waiters.users++ == 0) {
                    revive(waiters);
                }
                subscribeIfNeeded(waiters);
                return new SharedSubscription(waiters);
            }
        }
    }

    /**
     * Calls {@code listener} at every unlock message on {@code channel} and every resubscription of
     * it (messages may have been lost), on a Lettuce I/O thread, until the returned watch is closed;
     * the channel stays subscribed meanwhile. The listener must be short and must not block.
     *
     * @return the watch, or null when the registry is closed
     */
    @Override
    public Watch watch(String channel, Runnable listener) {
        while (!closed) {
            ChannelWaiters waiters = channels.computeIfAbsent(channel, name -> new ChannelWaiters(name, timer));
            synchronized (waiters) {
                if (waiters.retired) {
                    continue;
                }
                if (waiters.users++ == 0) {
                    revive(waiters);
                }
                subscribeIfNeeded(waiters);
                waiters.watchers.add(listener);
                return new SharedWatch(waiters, listener);
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
    public Subscription subscribeIfConfirmed(String channel) {
        ChannelWaiters waiters = channels.get(channel);
        if (waiters == null || closed) {
            return null;
        }
        synchronized (waiters) {
            if (waiters.retired || waiters.ready == null || !waiters.ready.isDone()
                    || waiters.ready.isCompletedExceptionally()) {
                return null;
            }
            if (waiters.users++ == 0) {
                revive(waiters);
            }
            return new SharedSubscription(waiters);
        }
    }

    /**
     * An idle channel gets its first waiter again; under its monitor. Unlock messages that came
     * while it was idle are stale for the new waiter, which has yet to make its attempt.
     */
    private void revive(ChannelWaiters waiters) {
        idle.asMap().remove(waiters.name, waiters);
        waiters.permit.set(false);
    }

    /** Sends SUBSCRIBE when it was never sent or failed (a timeout during an outage); under the channel's monitor. */
    private void subscribeIfNeeded(ChannelWaiters waiters) {
        if (waiters.ready == null || waiters.ready.isCompletedExceptionally()) {
            waiters.ready = backend.subscribe(waiters.name);
        }
    }

    @Override
    public void onGrant(Consumer<String> listener) {
        this.grantListener = listener;
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
        for (ChannelWaiters waiters : channels.values()) {
            synchronized (waiters) {
                if (waiters.users > 0) {
                    inUse++;
                }
            }
        }
        return inUse;
    }

    /** Routes pub/sub events, on a Lettuce I/O thread, to the channel's waiters. */
    private final class UnlockListener implements RedisBackend.PubSubEvents {
        @Override
        public void message(String channel, String message) {
            if (LockKeys.isGrantChannel(channel)) {
                try {
                    grantListener.accept(message);
                } catch (RuntimeException e) {
                    log.error("the grant on {} failed", channel, e);
                }
                return;
            }
            ChannelWaiters waiters = channels.get(channel);
            if (waiters == null) {
                return;
            }
            if (LockKeys.READ_UNLOCK_MESSAGE.equals(message)) {
                waiters.wakeAll(); // a read-write lock let someone in: every waiter may go
            } else {
                waiters.wakeOne();
            }
            waiters.notifyWatchers();
        }

        /**
         * Subscribes every channel again, to its slot's owner now. Waiters stay parked (their
         * attempts would only reach a node that is down) until the new subscription is confirmed,
         * then all are woken, since messages may have been lost with the old node; at worst they
         * wake at the holder's lease, as always.
         */
        @Override
        public void topologyChanged() {
            for (ChannelWaiters waiters : channels.values()) {
                resubscribe(waiters);
            }
        }

        /**
         * A node dropped a sharded subscription that waiters still use: its slot moved (a
         * resharding). The slot map is read again, and the channel subscribed on its new owner.
         */
        @Override
        public void shardUnsubscribed(String channel) {
            ChannelWaiters waiters = channels.get(channel);
            if (waiters == null || closed) {
                return;
            }
            synchronized (waiters) {
                if (waiters.retired) {
                    return; // this client's own UNSUBSCRIBE
                }
                if (waiters.users == 0) {
                    // idle: forget it, so that the next waiter subscribes anew instead of trusting it
                    waiters.retired = true;
                    channels.remove(channel, waiters);
                    idle.asMap().remove(channel, waiters);
                    return;
                }
            }
            log.debug("{} was unsubscribed by the server (its slot moved): subscribing again", channel);
            backend.refreshTopology().whenComplete((ok, failure) -> resubscribe(waiters));
        }

        /** Subscribes {@code waiters}' channel again and wakes them all once Redis confirms it. */
        private void resubscribe(ChannelWaiters waiters) {
            if (waiters.retired || closed) {
                return;
            }
            backend.subscribe(waiters.name).whenComplete((ok, failure) -> {
                if (failure == null) {
                    waiters.wakeAll();
                    waiters.notifyWatchers();
                } else {
                    log.debug("could not subscribe {} again: {}", waiters.name, failure.toString());
                }
            });
        }

        @Override
        public void subscribed(String channel) {
            ChannelWaiters waiters = channels.get(channel);
            if (waiters != null) {
                waiters.onSubscribed();
            }
        }
    }

    private void release(ChannelWaiters waiters) {
        boolean retireNow;
        synchronized (waiters) {
            if (--waiters.users > 0) {
                return;
            }
            retireNow = closed;
            if (!retireNow) {
                idle.put(waiters.name, waiters);
            }
        }
        if (retireNow) {
            retireIfUnused(waiters);
        }
    }

    private void retireIfUnused(ChannelWaiters waiters) {
        synchronized (waiters) {
            if (waiters.users > 0 || waiters.retired) {
                return;
            }
            waiters.retired = true;
            if (!closed) {
                backend.unsubscribe(waiters.name);
            }
            channels.remove(waiters.name, waiters);
        }
    }

    /** Wakes every parked waiter; later subscribes fail. The connection is the backend's to close. */
    @Override
    public void close() {
        closed = true;
        idle.invalidateAll();
        for (ChannelWaiters waiters : channels.values()) {
            waiters.wakeAll();
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
        private final ChannelWaiters waiters;
        private final Runnable listener;
        private final AtomicBoolean open = new AtomicBoolean(true);

        private SharedWatch(ChannelWaiters waiters, Runnable listener) {
            this.waiters = waiters;
            this.listener = listener;
        }

        @Override
        public void close() {
            if (open.compareAndSet(true, false)) {
                waiters.watchers.remove(listener);
                release(waiters);
            }
        }
    }

    /** A waiter's share of a channel subscription. Owned by one wait loop; close it once done. */
    private final class SharedSubscription implements Subscription {
        private final ChannelWaiters waiters;
        private boolean closedHandle; // confined to the owning wait loop
        /** The channel's broadcast count this waiter has seen; written on an I/O thread too. */
        private volatile long seenBroadcasts;

        private SharedSubscription(ChannelWaiters waiters) {
            this.waiters = waiters;
            this.seenBroadcasts = waiters.broadcasts.get();
        }

        /** Completes when Redis confirmed the subscription. */
        @Override
        public CompletableFuture<Void> ready() {
            synchronized (waiters) {
                return waiters.ready;
            }
        }

        /**
         * Whether Redis confirmed the subscription, so unlock messages will arrive. When the
         * SUBSCRIBE failed, it is sent again, so a long wait does not poll for the rest of its time.
         */
        @Override
        public boolean isReady() {
            synchronized (waiters) {
                subscribeIfNeeded(waiters);
                return waiters.ready.isDone() && !waiters.ready.isCompletedExceptionally();
            }
        }

        /**
         * Parks until an unlock message or {@code timeoutMillis}. The future completes with
         * {@code true} when woken by a message, {@code false} at the timeout; completing it early
         * with {@code false} abandons the park.
         */
        @Override
        public CompletableFuture<Boolean> park(long timeoutMillis) {
            CompletableFuture<Boolean> parked = waiters.park(timeoutMillis, seenBroadcasts);
            CompletableFuture<Boolean> out = new CompletableFuture<>();
            parked.whenComplete((woken, failure) -> {
                // before the waiter's next attempt is sent: a broadcast after this read is not lost
                seenBroadcasts = waiters.broadcasts.get();
                out.complete(Boolean.TRUE.equals(woken));
            });
            out.whenComplete((woken, failure) -> parked.complete(false)); // abandoned early
            return out;
        }

        @Override
        public void close() {
            if (!closedHandle) {
                closedHandle = true;
                release(waiters);
            }
        }
    }

    /** The waiters of one channel. */
    static final class ChannelWaiters {
        final String name;
        final Queue<CompletableFuture<Boolean>> parked;
        /** One wake-up that arrived while nobody was parked. */
        final AtomicBoolean permit = new AtomicBoolean();
        /**
         * How many times every waiter was woken at once. A waiter parks with the count it has seen
         * and returns at once when it moved, so a broadcast between its attempt and its park is
         * not lost, for each waiter (a permit would serve only one).
         */
        final AtomicLong broadcasts = new AtomicLong();
        /** Listeners of every message and resubscription: see {@link WakeUpRegistry#watch}. */
        final List<Runnable> watchers = new CopyOnWriteArrayList<>();
        /** Set by the first {@code subscribed} event; later ones are resubscriptions. */
        volatile boolean confirmedOnce;
        // guarded by this:
        int users;
        boolean retired;
        CompletableFuture<Void> ready;

        private final Timer timer;

        ChannelWaiters(String name, Timer timer) {
            this(name, timer, new ConcurrentLinkedQueue<>());
        }

        /** With the queue of parked waiters given: tests use it to force an interleaving. */
        ChannelWaiters(String name, Timer timer, Queue<CompletableFuture<Boolean>> parked) {
            this.name = name;
            this.timer = timer;
            this.parked = parked;
        }

        /** Parks one waiter; {@code seenBroadcasts} is the {@link #broadcasts} count it has seen. */
        CompletableFuture<Boolean> park(long timeoutMillis, long seenBroadcasts) {
            if (broadcasts.get() != seenBroadcasts || permit.getAndSet(false)) {
                return CompletableFuture.completedFuture(true);
            }
            CompletableFuture<Boolean> waiter = new CompletableFuture<>();
            parked.add(waiter);
            if (permit.getAndSet(false)) {
                if (!waiter.complete(true)) {
                    wakeOne(); // the permit raced with a direct wake-up: pass it on
                }
            } else if (broadcasts.get() != seenBroadcasts) {
                waiter.complete(true); // a broadcast polled the queue before this waiter joined it
            }
            Timeouts.completeAfter(timer, waiter, false, timeoutMillis, TimeUnit.MILLISECONDS);
            waiter.thenAccept(woken -> {
                if (!woken) {
                    parked.remove(waiter);
                }
            });
            return waiter;
        }

        /**
         * Wakes one parked waiter, or leaves the permit. {@link #park} adds its waiter and then
         * looks for the permit; this sets the permit and then looks for a waiter, so a waiter that
         * parked between this poll and this set is not left asleep with the permit unused (a lost
         * wake-up that lasted until the holder's lease ran out).
         */
        void wakeOne() {
            while (true) {
                for (CompletableFuture<Boolean> waiter; (waiter = parked.poll()) != null; ) {
                    if (waiter.complete(true)) {
                        return;
                    }
                }
                permit.set(true);
                if (parked.isEmpty() || !permit.getAndSet(false)) {
                    return; // nobody parked meanwhile, or a parker took the permit itself
                }
            }
        }

        void wakeAll() {
            broadcasts.incrementAndGet();
            for (CompletableFuture<Boolean> waiter; (waiter = parked.poll()) != null; ) {
                waiter.complete(true);
            }
        }

        void notifyWatchers() {
            for (Runnable watcher : watchers) {
                try {
                    watcher.run();
                } catch (Throwable t) {
                    log.error("unlock listener of {} failed", name, t);
                }
            }
        }

        void onSubscribed() {
            if (confirmedOnce) {
                log.debug("resubscribed to {}: waking its waiters", name);
                wakeAll();
                notifyWatchers();
            } else {
                confirmedOnce = true;
            }
        }
    }
}
