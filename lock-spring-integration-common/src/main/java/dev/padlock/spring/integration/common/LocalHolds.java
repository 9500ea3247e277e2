package dev.padlock.spring.integration.common;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Which threads of this process hold each key of a registry, with their hold counts. Kept apart
 * from the registry's cache of lock objects, which {@code expireUnusedOlderThan} may drop from:
 * a thread that locks through a dropped object, or through another object of the same key, is
 * still found. A key has an entry while some thread holds it. Thread-safe; the changes of a key
 * are serialised by {@link ConcurrentHashMap#compute}.
 *
 * <p>Only this process's view: Redis says whether a hold is still there.
 */
final class LocalHolds {
    private final ConcurrentHashMap<String, ConcurrentHashMap<Long, Integer>> byKey = new ConcurrentHashMap<>();

    /** {@code thread} took one more hold of {@code key}. */
    void acquired(String key, long thread) {
        byKey.compute(key, (k, threads) -> {
            ConcurrentHashMap<Long, Integer> holders = threads == null ? new ConcurrentHashMap<>() : threads;
            holders.merge(thread, 1, Integer::sum);
            return holders;
        });
    }

    /**
     * Drops one hold of {@code key} by {@code thread}.
     *
     * @return whether {@code thread} had one
     */
    boolean released(String key, long thread) {
        boolean[] had = {false};
        byKey.computeIfPresent(key, (k, holders) -> {
            Integer count = holders.get(thread);
            if (count != null) {
                had[0] = true;
                if (count == 1) {
                    holders.remove(thread);
                } else {
                    holders.put(thread, count - 1);
                }
            }
            return holders.isEmpty() ? null : holders;
        });
        return had[0];
    }

    /** Whether {@code thread} holds {@code key}. */
    boolean holds(String key, long thread) {
        ConcurrentHashMap<Long, Integer> holders = byKey.get(key);
        return holders != null && holders.containsKey(thread);
    }

    /** A thread of this process that holds {@code key}, or null. */
    Long anyHolder(String key) {
        ConcurrentHashMap<Long, Integer> holders = byKey.get(key);
        return holders == null ? null : holders.keySet().stream().findFirst().orElse(null);
    }

    boolean isHeld(String key) {
        return byKey.containsKey(key);
    }

    boolean isEmpty() {
        return byKey.isEmpty();
    }
}
