package dev.padlock.internal.acquire;

import dev.padlock.internal.base.Timeouts;
import dev.padlock.internal.wakeup.WakeUps;
import io.netty.util.Timer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Unlock and grant channels driven by hand: Redis confirms a subscription when the test says so
 * ({@link #confirm}, or at once with {@link #confirmAtOnce}), and an unlock message wakes parked
 * waiters when the test {@link #fire}s it. A park ends by itself at its timeout on the test's
 * timer, as the real registry's does. Not thread-safe: everything runs on the test's thread.
 */
public final class HandWakeUps implements WakeUps {
    private final Timer timer;
    private final Map<String, CompletableFuture<Void>> ready = new HashMap<>();
    private final Set<String> confirmedBefore = new HashSet<>();
    private final List<String> subscribed = new ArrayList<>();
    private final List<Park> parks = new ArrayList<>();
    private boolean confirmAtOnce = true;
    private boolean closed;
    private int open;

    public HandWakeUps(Timer timer) {
        this.timer = timer;
    }

    /** One park: on which channel, for how long at most, and its future. */
    public record Park(String channel, long millis, CompletableFuture<Boolean> woken) {
    }

    /** Whether Redis confirms a new subscription as it is made (the default) or only at {@link #confirm}. */
    public HandWakeUps confirmAtOnce(boolean atOnce) {
        this.confirmAtOnce = atOnce;
        return this;
    }

    /** This client is already subscribed to {@code channel}, confirmed: a recently contended lock. */
    public HandWakeUps alreadyConfirmed(String channel) {
        confirmedBefore.add(channel);
        readiness(channel).complete(null);
        return this;
    }

    /** Redis confirms the subscription to {@code channel}. */
    public void confirm(String channel) {
        readiness(channel).complete(null);
    }

    /** An unlock message on {@code channel}: wakes every waiter parked on it. */
    public void fire(String channel) {
        for (Park park : List.copyOf(parks)) {
            if (park.channel().equals(channel)) {
                park.woken().complete(true);
            }
        }
    }

    /** Channels subscribed with {@link #subscribe} (not shared confirmed ones), in order. */
    public List<String> subscribed() {
        return subscribed;
    }

    /** Every park so far, in order. */
    public List<Park> parks() {
        return parks;
    }

    /** The latest park. */
    public Park lastPark() {
        return parks.get(parks.size() - 1);
    }

    /** Subscriptions handed out and not closed. */
    public int open() {
        return open;
    }

    private CompletableFuture<Void> readiness(String channel) {
        return ready.computeIfAbsent(channel, c -> new CompletableFuture<>());
    }

    @Override
    public Subscription subscribe(String channel) {
        if (closed) {
            throw new IllegalStateException("closed");
        }
        subscribed.add(channel);
        if (confirmAtOnce) {
            readiness(channel).complete(null);
        }
        return new HandSubscription(channel);
    }

    @Override
    public Subscription subscribeIfConfirmed(String channel) {
        return confirmedBefore.contains(channel) && !closed ? new HandSubscription(channel) : null;
    }

    @Override
    public Watch watch(String channel, Runnable listener) {
        throw new UnsupportedOperationException("no acquisition watches");
    }

    @Override
    public boolean isSubscribed(String channel) {
        return readiness(channel).isDone();
    }

    @Override
    public int subscribedChannels() {
        return ready.size();
    }

    @Override
    public int channelsInUse() {
        return open;
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public String address() {
        return "redis://test:6379";
    }

    /** Closes, as the client does: every parked waiter wakes (with {@code false}). */
    @Override
    public void close() {
        closed = true;
        for (Park park : List.copyOf(parks)) {
            park.woken().complete(false);
        }
    }

    private final class HandSubscription implements Subscription {
        private final String channel;
        private boolean closedHere;

        HandSubscription(String channel) {
            this.channel = channel;
            open++;
        }

        @Override
        public CompletableFuture<Void> ready() {
            return readiness(channel);
        }

        @Override
        public boolean isReady() {
            CompletableFuture<Void> r = readiness(channel);
            return r.isDone() && !r.isCompletedExceptionally();
        }

        @Override
        public CompletableFuture<Boolean> park(long timeoutMillis) {
            CompletableFuture<Boolean> woken = new CompletableFuture<>();
            parks.add(new Park(channel, timeoutMillis, woken));
            return Timeouts.completeAfter(timer, woken, false, timeoutMillis, TimeUnit.MILLISECONDS);
        }

        @Override
        public void close() {
            if (!closedHere) {
                closedHere = true;
                open--;
            }
        }
    }
}
