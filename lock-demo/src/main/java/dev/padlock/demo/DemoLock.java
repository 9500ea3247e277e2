package dev.padlock.demo;

import dev.padlock.LockClient;
import dev.padlock.RFencedLock;
import dev.padlock.RLock;
import dev.padlock.RReadWriteLock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * What one worker thread takes each iteration, for each {@link DemoKind}: one implementation a
 * kind of acquisition (plain, fenced, read-or-write). An instance belongs to one thread.
 */
interface DemoLock {

    /** The token of a {@link Hold} that has none. */
    long NO_TOKEN = -1;

    /**
     * One acquisition: the lock to unlock, whether the holder may write (false for a read lock),
     * and its fencing token ({@link #NO_TOKEN} unless the lock is fenced).
     */
    record Hold(RLock lock, boolean exclusive, long token) {
    }

    /**
     * Waits without bound and acquires: with a fixed lease of {@code leaseMillis}, or the
     * watchdog when it is 0.
     */
    Hold acquire(long leaseMillis);

    /**
     * The lock thread {@code variant} of a worker uses. A multi lock gets its three names in one
     * of their six orders, picked by {@code variant}; a red lock takes one lock from each client.
     *
     * @param clients one client per server: {@link DemoKind#servers()} of them
     */
    static DemoLock create(DemoKind kind, List<LockClient> clients, int variant) {
        LockClient client = clients.get(0);
        switch (kind) {
            case LOCK:
                return new Plain(client.getLock(DemoKeys.LOCK));
            case FAIR:
                return new Plain(client.getFairLock(DemoKeys.LOCK));
            case SPIN:
                return new Plain(client.getSpinLock(DemoKeys.LOCK));
            case FENCED:
                return new Fenced(client.getFencedLock(DemoKeys.LOCK));
            case RW:
                return new ReadWrite(client.getReadWriteLock(DemoKeys.LOCK));
            case MULTI:
                List<RLock> parts = new ArrayList<>();
                for (String name : order(DemoKeys.lockNames(kind), variant)) {
                    parts.add(client.getLock(name));
                }
                return new Plain(client.getMultiLock(parts.toArray(new RLock[0])));
            case RED:
                RLock[] perServer = clients.stream().map(each -> each.getLock(DemoKeys.LOCK)).toArray(RLock[]::new);
                return new Plain(client.getRedLock(perServer));
            default:
                throw new IllegalStateException("Unknown kind " + kind);
        }
    }

    /** Permutation {@code variant mod 3!} of three names. */
    private static List<String> order(List<String> names, int variant) {
        int[][] orders = {{0, 1, 2}, {2, 1, 0}, {1, 2, 0}, {0, 2, 1}, {2, 0, 1}, {1, 0, 2}};
        int[] picked = orders[Math.floorMod(variant, orders.length)];
        return List.of(names.get(picked[0]), names.get(picked[1]), names.get(picked[2]));
    }

    private static void lock(RLock lock, long leaseMillis) {
        if (leaseMillis > 0) {
            lock.lock(leaseMillis, TimeUnit.MILLISECONDS);
        } else {
            lock.lock();
        }
    }

    /** An exclusive lock without tokens: lock, fair, spin, multi, red. */
    final class Plain implements DemoLock {
        private final RLock lock;

        Plain(RLock lock) {
            this.lock = lock;
        }

        @Override
        public Hold acquire(long leaseMillis) {
            lock(lock, leaseMillis);
            return new Hold(lock, true, NO_TOKEN);
        }
    }

    /** The fenced lock: every acquisition comes with its token. */
    final class Fenced implements DemoLock {
        private final RFencedLock lock;

        Fenced(RFencedLock lock) {
            this.lock = lock;
        }

        @Override
        public Hold acquire(long leaseMillis) {
            if (leaseMillis <= 0) {
                return new Hold(lock, true, lock.lockAndGetToken());
            }
            return new Hold(lock, true, lock.lockAndGetToken(leaseMillis, TimeUnit.MILLISECONDS));
        }
    }

    /** The read-write lock: one iteration in {@value #WRITE_ONE_IN} takes the write lock. */
    final class ReadWrite implements DemoLock {
        static final int WRITE_ONE_IN = 4;

        private final RLock read;
        private final RLock write;

        ReadWrite(RReadWriteLock lock) {
            this.read = lock.readLock();
            this.write = lock.writeLock();
        }

        @Override
        public Hold acquire(long leaseMillis) {
            boolean writes = ThreadLocalRandom.current().nextInt(WRITE_ONE_IN) == 0;
            RLock lock = writes ? write : read;
            lock(lock, leaseMillis);
            return new Hold(lock, writes, NO_TOKEN);
        }
    }
}
