package dev.padlock.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The client heap that watchdog-held locks cost: one client of each library takes
 * {@value #LOCKS} locks with {@code lock()} (the watchdog renews them) on one thread and keeps
 * them; the heap in use after a full GC, less what it was before, per lock. The bench keeps only
 * the names (counted out: they are made before the first reading), not the lock objects, so what
 * is counted is what the library itself keeps for a held lock. Everything is released after.
 */
final class HeldLocksHeap {
    static final int LOCKS = 50_000;
    private static final int SETTLE_ROUNDS = 40;
    private static final long SETTLED_BYTES = 256 * 1024;

    private HeldLocksHeap() {
    }

    /** Bytes of client heap per held lock, by library name, on {@code target}. */
    static Map<String, Double> bytesPerLock(RedisTarget target, List<LockLibrary> libraries) {
        Map<String, Double> bytes = new LinkedHashMap<>();
        for (LockLibrary library : libraries) {
            bytes.put(library.name(), measure(target, library));
        }
        return bytes;
    }

    private static double measure(RedisTarget target, LockLibrary library) {
        List<String> names = new ArrayList<>(LOCKS);
        String tag = "heap-" + UUID.randomUUID() + ":";
        for (int i = 0; i < LOCKS; i++) {
            names.add(tag + i);
        }
        try (LockLibrary.Client client = library.connect(target)) {
            // warm: the client's own structures and the scripts, before the first reading
            BenchLock warm = client.lock(tag + "warm");
            warm.lockWithWatchdog();
            warm.unlock();
            long before = settledHeap();
            for (String name : names) {
                client.lock(name).lockWithWatchdog();
            }
            long after = usedAfterGc();
            for (String name : names) {
                client.lock(name).unlock();
            }
            return (after - before) / (double) LOCKS;
        }
    }

    /**
     * The heap in use once what earlier scenarios left is gone: clients closed just before (their
     * event loops and buffer pools) still shut down for a while, and what they free during the
     * measurement would be counted off the locks' cost. Readings half a second apart until two
     * agree within {@value #SETTLED_BYTES} bytes, for at most {@value #SETTLE_ROUNDS} rounds.
     */
    private static long settledHeap() {
        long last = usedAfterGc();
        for (int round = 0; round < SETTLE_ROUNDS; round++) {
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return last;
            }
            long now = usedAfterGc();
            if (Math.abs(now - last) < SETTLED_BYTES) {
                return now;
            }
            last = now;
        }
        return last;
    }

    /** Heap in use after full collections, once it stops shrinking (at most a few rounds). */
    private static long usedAfterGc() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long used = Long.MAX_VALUE;
        for (int round = 0; round < 5; round++) {
            System.gc();
            long now = memory.getHeapMemoryUsage().getUsed();
            if (now >= used) {
                return now;
            }
            used = now;
        }
        return used;
    }
}
