package dev.padlock.demo;

import dev.padlock.RLock;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One worker thread's job until the deadline: take the lock, read the counter, write it back
 * plus one (a race without the lock), note the time, unlock.
 *
 * <p>Wake-up latency: just before unlocking, the holder writes the epoch microseconds to
 * {@link DemoKeys#RELEASED_AT}; the next holder reads it right after acquiring. When that time
 * is later than the moment this thread started waiting, the acquisition had to wait for that
 * unlock, and the difference is the time from the unlock to this acquire.
 *
 * <p>Every GET and SET this class sends is counted, so the parent can tell the demo's own
 * commands from the lock engine's. The counters are written by the loop's thread and read by
 * others only after it ended (or, for {@link #acquisitions()}, as an atomic).
 */
final class CounterLoop implements Runnable {

    private final RLock lock;
    private final RedisCommands<String, String> redis;
    private final long leaseMillis;
    private final long deadlineNanos;

    private final AtomicLong acquisitions = new AtomicLong();
    private final LongSamples latencies = new LongSamples();
    private long gets;
    private long sets;
    private long leasesExpired;
    private volatile Throwable failure;

    CounterLoop(RLock lock, RedisCommands<String, String> redis, long leaseMillis, long deadlineNanos) {
        this.lock = lock;
        this.redis = redis;
        this.leaseMillis = leaseMillis;
        this.deadlineNanos = deadlineNanos;
    }

    @Override
    public void run() {
        try {
            while (System.nanoTime() - deadlineNanos < 0) {
                long waitStart = Micros.now();
                acquire();
                try {
                    incrementInsideLock(waitStart);
                } finally {
                    release();
                }
            }
        } catch (RuntimeException | Error e) {
            failure = e;
        }
    }

    private void acquire() {
        if (leaseMillis > 0) {
            lock.lock(leaseMillis, TimeUnit.MILLISECONDS);
        } else {
            lock.lock();
        }
    }

    /** A fixed lease can run out inside the lock: count it and go on, the counter will tell. */
    private void release() {
        try {
            lock.unlock();
        } catch (IllegalMonitorStateException e) {
            if (leaseMillis <= 0) {
                throw e;
            }
            leasesExpired++;
        }
    }

    private void incrementInsideLock(long waitStart) {
        long acquiredAt = Micros.now();
        String releasedAt = get(DemoKeys.RELEASED_AT);
        String counter = get(DemoKeys.COUNTER);
        set(DemoKeys.COUNTER, Long.toString(counter == null ? 1 : Long.parseLong(counter) + 1));
        acquisitions.incrementAndGet();
        if (releasedAt != null) {
            long released = Long.parseLong(releasedAt);
            if (released > waitStart) {
                latencies.add(acquiredAt - released);
            }
        }
        set(DemoKeys.RELEASED_AT, Long.toString(Micros.now()));
    }

    private String get(String key) {
        gets++;
        return redis.get(key);
    }

    private void set(String key, String value) {
        sets++;
        redis.set(key, value);
    }

    long acquisitions() {
        return acquisitions.get();
    }

    /** Call after the thread ended. */
    long gets() {
        return gets;
    }

    /** Call after the thread ended. */
    long sets() {
        return sets;
    }

    /** Unlocks that found the fixed lease already expired; call after the thread ended. */
    long leasesExpired() {
        return leasesExpired;
    }

    /** Call after the thread ended. */
    long[] latencies() {
        return latencies.toArray();
    }

    /** What ended the loop early, or null. */
    Throwable failure() {
        return failure;
    }
}
