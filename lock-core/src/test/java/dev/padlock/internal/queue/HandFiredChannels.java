package dev.padlock.internal.queue;

import dev.padlock.internal.wakeup.WakeUps;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/** Channels that are always subscribed and carry a message only when the test fires one. */
final class HandFiredChannels implements WakeUps {
    /** A listener's share of a channel, until closed. */
    record Watching(String channel, Runnable listener) {
    }

    final List<Watching> watchers = new CopyOnWriteArrayList<>();
    private final List<CompletableFuture<Boolean>> parked = new ArrayList<>();
    private boolean closed;
    /**
     * What {@link #subscribedChannels()} says: 0 (no subscription to share, as in a client that
     * never waited) lets a runner send an acquisition's first attempt itself.
     */
    int subscribed;

    /** An unlock message: wakes parked waiters and calls every watcher. */
    void fire() {
        List<CompletableFuture<Boolean>> woken;
        synchronized (parked) {
            woken = new ArrayList<>(parked);
            parked.clear();
        }
        woken.forEach(park -> park.complete(true));
        watchers.forEach(watching -> watching.listener().run());
    }

    /** The channels watched now, one entry a watch. */
    List<String> watchedChannels() {
        return watchers.stream().map(Watching::channel).toList();
    }

    /** Waiters parked now. */
    int parkedCount() {
        synchronized (parked) {
            return parked.size();
        }
    }

    @Override
    public Subscription subscribe(String channel) {
        return new Subscription() {
            @Override
            public CompletableFuture<Void> ready() {
                return CompletableFuture.completedFuture(null);
            }

            @Override
            public boolean isReady() {
                return true;
            }

            @Override
            public CompletableFuture<Boolean> park(long timeoutMillis) {
                CompletableFuture<Boolean> park = new CompletableFuture<>();
                synchronized (parked) {
                    parked.add(park);
                }
                return park;
            }

            @Override
            public void close() {
            }
        };
    }

    /** Whether {@link #subscribeIfConfirmed} shares the subscriptions (a recently contended lock); else none. */
    boolean sharesConfirmed;

    @Override
    public Subscription subscribeIfConfirmed(String channel) {
        return sharesConfirmed ? subscribe(channel) : null;
    }

    /**
     * Whether Redis confirms a watch's subscription (its {@code ready()} completes). Off unless a
     * test turns it on: the queue's holder check waits for it, and other tests send no check.
     */
    boolean confirmsWatches;

    @Override
    public Watch watch(String channel, Runnable listener) {
        Watching watching = new Watching(channel, listener);
        watchers.add(watching);
        return new Watch() {
            @Override
            public CompletableFuture<Void> ready() {
                return confirmsWatches ? CompletableFuture.completedFuture(null) : new CompletableFuture<>();
            }

            @Override
            public void close() {
                watchers.remove(watching);
            }
        };
    }

    @Override
    public boolean isSubscribed(String channel) {
        return true;
    }

    @Override
    public int subscribedChannels() {
        return subscribed;
    }

    @Override
    public int channelsInUse() {
        return watchers.size();
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public String address() {
        return "nowhere";
    }

    @Override
    public void close() {
        closed = true;
    }
}
