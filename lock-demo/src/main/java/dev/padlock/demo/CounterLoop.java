package dev.padlock.demo;

import io.lettuce.core.api.sync.RedisCommands;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One worker thread's job until the deadline: take the lock, read the counter, write it back
 * plus one (a race without the lock), note the time, unlock. Under a read lock ({@code --kind
 * rw}) it only reads the counter, twice, and counts a torn read when the two differ. Under a
 * fenced lock it first reads the last token any holder wrote ({@link DemoKeys#TOKEN}), counts a
 * violation unless its own token is larger, and writes its own.
 *
 * <p>Wake-up latency: just before unlocking, an exclusive holder writes the epoch microseconds
 * to {@link DemoKeys#RELEASED_AT}; the next holder reads it right after acquiring. When that
 * time is later than the moment this thread started waiting, the acquisition had to wait for
 * that unlock, and the difference is the time from the unlock to this acquire. Readers do not
 * write it (several hold the lock at once), so with a read-write lock the latency is the one
 * after a write unlock.
 *
 * <p>Every GET and SET this class sends is counted, so the parent can tell the demo's own
 * commands from the lock engine's. The counters are written by the loop's thread and read by
 * others only after it ended (or, for {@link #acquisitions()}, as an atomic).
 */
final class CounterLoop implements Runnable {

    private final DemoLock lock;
    private final RedisCommands<String, String> redis;
    private final long leaseMillis;
    private final long deadlineNanos;

    private final AtomicLong acquisitions = new AtomicLong();
    private final LongSamples latencies = new LongSamples();
    private long writes;
    private long tornReads;
    private long tokenViolations;
    private long gets;
    private long sets;
    private long leasesExpired;
    private volatile Throwable failure;

    CounterLoop(DemoLock lock, RedisCommands<String, String> redis, long leaseMillis, long deadlineNanos) {
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
                DemoLock.Hold hold = lock.acquire(leaseMillis);
                try {
                    if (hold.exclusive()) {
                        incrementInsideLock(waitStart, hold.token());
                    } else {
                        readInsideLock(waitStart);
                    }
                } finally {
                    release(hold);
                }
            }
        } catch (RuntimeException | Error e) {
            failure = e;
        }
    }

    /** A fixed lease can run out inside the lock: count it and go on, the counter will tell. */
    private void release(DemoLock.Hold hold) {
        try {
            hold.lock().unlock();
        } catch (IllegalMonitorStateException e) {
            if (leaseMillis <= 0) {
                throw e;
            }
            leasesExpired++;
        }
    }

    private void incrementInsideLock(long waitStart, long token) {
        long acquiredAt = Micros.now();
        String releasedAt = get(DemoKeys.RELEASED_AT);
        if (token != DemoLock.NO_TOKEN) {
            checkToken(token);
        }
        String counter = get(DemoKeys.COUNTER);
        set(DemoKeys.COUNTER, Long.toString(counter == null ? 1 : Long.parseLong(counter) + 1));
        writes++;
        acquisitions.incrementAndGet();
        sample(waitStart, acquiredAt, releasedAt);
        set(DemoKeys.RELEASED_AT, Long.toString(Micros.now()));
    }

    /** What a resource guarded by fencing tokens does: refuse a token not larger than the last. */
    private void checkToken(long token) {
        String last = get(DemoKeys.TOKEN);
        if (last != null && token <= Long.parseLong(last)) {
            tokenViolations++;
            return;
        }
        set(DemoKeys.TOKEN, Long.toString(token));
    }

    private void readInsideLock(long waitStart) {
        long acquiredAt = Micros.now();
        String releasedAt = get(DemoKeys.RELEASED_AT);
        String first = get(DemoKeys.COUNTER);
        String second = get(DemoKeys.COUNTER);
        if (first == null ? second != null : !first.equals(second)) {
            tornReads++;
        }
        acquisitions.incrementAndGet();
        sample(waitStart, acquiredAt, releasedAt);
    }

    private void sample(long waitStart, long acquiredAt, String releasedAt) {
        if (releasedAt != null) {
            long released = Long.parseLong(releasedAt);
            if (released > waitStart) {
                latencies.add(acquiredAt - released);
            }
        }
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

    /** Exclusive acquisitions, each of which incremented the counter; call after the thread ended. */
    long writes() {
        return writes;
    }

    /** Read-lock acquisitions that saw the counter change between two reads; call after the thread ended. */
    long tornReads() {
        return tornReads;
    }

    /** Fencing tokens not larger than the last one written; call after the thread ended. */
    long tokenViolations() {
        return tokenViolations;
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
