package dev.padlock.sample.app;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import org.springframework.stereotype.Service;

/** A counter on Redis that any instance may add to, exact because each update holds a Padlock lock. */
@Service
public class Counter {
    static final String LOCK = "sample:counter:lock";

    private final LockClient locks;
    private final SampleData data;

    Counter(LockClient locks, SampleData data) {
        this.locks = locks;
        this.data = data;
    }

    /**
     * Adds one and returns the new value: a read, then a write, deliberately not atomic (no
     * {@code INCR}), so that only the lock keeps two instances from losing an update.
     */
    public long increment() {
        RLock lock = locks.getLock(LOCK);
        lock.lock();
        try {
            long next = data.get(SampleData.COUNTER) + 1;
            data.set(SampleData.COUNTER, next);
            return next;
        } finally {
            lock.unlock();
        }
    }
}
