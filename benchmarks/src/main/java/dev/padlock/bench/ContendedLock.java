package dev.padlock.bench;

import java.util.List;
import java.util.Random;

/**
 * What the threads of a multi-process scenario contend for, one lock of a name: a plain lock
 * ({@code getLock}), a fair lock ({@code getFairLock}), or a read-write lock
 * ({@code getReadWriteLock}) of which each acquisition takes the read lock or the write lock at
 * random, with a given share of reads; every acquisition of a lock is {@code lock(lease)} +
 * {@code unlock()}. Or a counting semaphore ({@code getSemaphore}), whose permits the scenario
 * sets beforehand: every acquisition is {@code acquire()} + {@code release()} of one permit.
 */
enum ContendedLock {
    LOCK("lock"),
    FAIR("fair lock"),
    READ_WRITE("read-write lock"),
    SEMAPHORE("semaphore");

    private final String noun;

    ContendedLock(String noun) {
        this.noun = noun;
    }

    /** The lock's name in a title, e.g. {@code fair lock}. */
    String noun() {
        return noun;
    }

    /**
     * One thread's acquisition of the lock {@code name} from {@code client}. For a read-write
     * lock it takes the read lock with probability {@code readRatio}, else the write lock, drawn
     * from a {@link Random} of {@code seed} that the thread owns; the other kinds ignore both, and
     * a semaphore ignores {@code leaseMillis} too.
     */
    LockLoop.Acquisition acquisition(LockLibrary.Client client, String name, long leaseMillis, double readRatio,
            long seed) {
        switch (this) {
            case LOCK:
            case FAIR:
                BenchLock lock = client.lock(this == LOCK ? LockKind.LOCK : LockKind.FAIR, List.of(name));
                return () -> {
                    lock.lock(leaseMillis);
                    lock.unlock();
                };
            case READ_WRITE:
                BenchLock read = client.lock(LockKind.READ, List.of(name));
                BenchLock write = client.lock(LockKind.WRITE, List.of(name));
                Random random = new Random(seed);
                return () -> {
                    BenchLock chosen = random.nextDouble() < readRatio ? read : write;
                    chosen.lock(leaseMillis);
                    chosen.unlock();
                };
            case SEMAPHORE:
                BenchSemaphore semaphore = client.semaphore(name);
                return () -> {
                    semaphore.acquire();
                    semaphore.release();
                };
            default:
                throw new IllegalStateException("Unknown lock " + this);
        }
    }
}
