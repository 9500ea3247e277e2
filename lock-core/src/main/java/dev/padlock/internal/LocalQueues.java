package dev.padlock.internal;

import dev.padlock.internal.LockProtocol.ReleaseOutcome;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@link LocalQueue}s of one client, one per lock name and way of waiting (pub/sub, or spinning
 * for the spin lock) while the lock is held or waited on by this client. A queue leaves the map
 * when it goes idle, so the map is bounded by the locks in use.
 */
final class LocalQueues {
    private final ConcurrentHashMap<Key, LocalQueue> queues = new ConcurrentHashMap<>();

    private record Key(String localKey, boolean spin) {
    }

    /** Acquires through the lock's queue: see {@link LocalQueue}. */
    PendingAcquire acquire(LockProtocol protocol, LockServices services, boolean spin, long threadId,
            long leaseMillis, boolean watchdogLease, long waitNanos) {
        while (true) {
            LocalQueue queue = queue(protocol, services, spin);
            synchronized (queue) {
                if (!queue.retired) {
                    return queue.acquire(threadId, leaseMillis, watchdogLease, waitNanos);
                }
            }
        }
    }

    /** Releases one hold of {@code threadId}, handing the lock to a queued owner when it can. */
    CompletableFuture<ReleaseOutcome> release(LockProtocol protocol, LockServices services, boolean spin,
            long threadId) {
        while (true) {
            LocalQueue queue = queue(protocol, services, spin);
            synchronized (queue) {
                if (queue.retired) {
                    continue;
                }
            }
            return queue.release(threadId);
        }
    }

    /** The watchdog found {@code threadId}'s lease of the lock known as {@code localKey} lost. */
    void onLeaseLost(String localKey, long threadId) {
        for (boolean spin : new boolean[] {false, true}) {
            LocalQueue queue = queues.get(new Key(localKey, spin));
            if (queue != null) {
                queue.onLeaseLost(threadId);
            }
        }
    }

    /** Queues in use now; for tests and metrics. */
    int size() {
        return queues.size();
    }

    /** Fails every queued owner. */
    void close() {
        queues.values().forEach(LocalQueue::close);
    }

    void remove(LocalQueue queue) {
        queues.remove(new Key(queue.localKey(), queue.spins()), queue);
    }

    private LocalQueue queue(LockProtocol protocol, LockServices services, boolean spin) {
        return queues.computeIfAbsent(new Key(protocol.localKey(), spin),
                key -> new LocalQueue(protocol, services, this, spin));
    }
}
