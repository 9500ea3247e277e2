package dev.padlock.tests.support;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import org.redisson.Redisson;
import org.redisson.RedissonLockEntry;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.pubsub.LockPubSub;
import org.redisson.pubsub.SemaphorePubSub;

/** A Redisson client beside Padlock's on the same Redis, for the interop tests. */
public final class Redissons {
    private Redissons() {
    }

    /** A single-server Redisson client on {@code uri}, with room for a few threads waiting at once. */
    public static RedissonClient open(String uri) {
        Config config = new Config();
        config.useSingleServer()
                .setAddress(uri)
                .setConnectionMinimumIdleSize(2)
                .setConnectionPoolSize(16)
                .setSubscriptionConnectionMinimumIdleSize(1);
        return Redisson.create(config);
    }

    /** Shuts {@code redisson} down, if open. */
    public static void close(RedissonClient redisson) {
        if (redisson != null) {
            redisson.shutdown(0, 5, SECONDS);
        }
    }

    /**
     * Waits until one of {@code redisson}'s semaphore waiters is parked: registered to run on the
     * next message of its channel. Redisson 4.7's timed semaphore wait looks for a message that
     * came before it registered and then registers, in two steps; a message between the two is
     * missed until the wait times out (its race). A test that wakes a Redisson waiter must release
     * only after this, or it tests the race instead of the release.
     */
    public static void awaitParkedSemaphoreWaiter(RedissonClient redisson, Duration bound) {
        SemaphorePubSub pubSub = ((Redisson) redisson).getCommandExecutor().getConnectionManager()
                .getSubscribeService().getSemaphorePubSub();
        await("a Redisson semaphore waiter parked").atMost(bound).pollInterval(Duration.ofMillis(5))
                .until(() -> entries(pubSub).stream().anyMatch(Redissons::hasListener));
    }

    /**
     * Waits until one of {@code redisson}'s lock waiters (an {@code RLock}, or either side of an
     * {@code RReadWriteLock}) is parked on its latch. A read-write unlock publishes {@code 1}, on
     * which Redisson releases as many permits as threads are parked then (its own write unlock
     * publishes the same): a waiter between its attempt and its park misses that message and
     * sleeps until the TTL it saw (Redisson's race). A test that wakes such a waiter with a
     * read-write unlock must unlock only after this.
     */
    public static void awaitParkedLockWaiter(RedissonClient redisson, Duration bound) {
        LockPubSub pubSub = ((Redisson) redisson).getCommandExecutor().getConnectionManager()
                .getSubscribeService().getLockPubSub();
        await("a Redisson lock waiter parked").atMost(bound).pollInterval(Duration.ofMillis(5))
                .until(() -> entries(pubSub).stream()
                        .anyMatch(entry -> ((RedissonLockEntry) entry).getLatch().hasQueuedThreads()));
    }

    /** The entries of a {@code PublishSubscribe} (package-private in Redisson): one per channel waited on. */
    private static Collection<?> entries(Object pubSub) throws ReflectiveOperationException {
        Field entries = pubSub.getClass().getSuperclass().getDeclaredField("entries");
        entries.setAccessible(true);
        return ((Map<?, ?>) entries.get(pubSub)).values();
    }

    private static boolean hasListener(Object entry) {
        try {
            Field listeners = entry.getClass().getDeclaredField("listeners");
            listeners.setAccessible(true);
            return !((Collection<?>) listeners.get(entry)).isEmpty();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Redisson's RedissonLockEntry changed: " + e, e);
        }
    }
}
