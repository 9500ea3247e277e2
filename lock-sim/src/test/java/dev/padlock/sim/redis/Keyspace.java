package dev.padlock.sim.redis;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The keys of one database and their expiry. A value is a {@code String}, a hash
 * ({@code LinkedHashMap}: Redis's small hashes keep insertion order), a list ({@code ArrayList}) or
 * a {@link ZSet}. A key is expired when {@code now > expireAt} (Redis's {@code keyIsExpired}); a
 * lookup drops it then (lazy expiry), while {@link #storedCount()} still counts expired keys nobody
 * looked up, as {@code DBSIZE} does.
 */
final class Keyspace {

    /** A key's value and its expiry (epoch ms, -1: none). */
    static final class Slot {
        Object value;
        long expireAt = -1;

        Slot(Object value) {
            this.value = value;
        }
    }

    private final Map<String, Slot> slots = new HashMap<>();

    Keyspace copy() {
        Keyspace copy = new Keyspace();
        slots.forEach((key, slot) -> {
            Slot clone = new Slot(copyValue(slot.value));
            clone.expireAt = slot.expireAt;
            copy.slots.put(key, clone);
        });
        return copy;
    }

    /** The key's slot, null when it is absent or expired at {@code now} (then it is dropped). */
    Slot lookup(String key, long now) {
        Slot slot = slots.get(key);
        if (slot != null && isExpired(slot, now)) {
            slots.remove(key);
            return null;
        }
        return slot;
    }

    /** The key's value when it is of {@code type}, null when absent; WRONGTYPE otherwise. */
    <T> T get(String key, long now, Class<T> type) {
        Slot slot = lookup(key, now);
        if (slot == null) {
            return null;
        }
        if (!type.isInstance(slot.value)) {
            throw ModelRedisException.wrongType();
        }
        return type.cast(slot.value);
    }

    /** Sets a new value without expiry, replacing whatever was there. */
    Slot put(String key, Object value) {
        Slot slot = new Slot(value);
        slots.put(key, slot);
        return slot;
    }

    boolean remove(String key, long now) {
        return lookup(key, now) != null && slots.remove(key) != null;
    }

    /** Drops {@code key} when its container is empty, as Redis deletes empty hashes, lists and zsets. */
    void removeIfEmpty(String key) {
        Slot slot = slots.get(key);
        if (slot != null && isEmptyContainer(slot.value)) {
            slots.remove(key);
        }
    }

    /** The live keys matching {@code pattern}, sorted; expired ones are skipped, not dropped (as KEYS). */
    List<String> keys(String pattern, long now) {
        List<String> keys = new ArrayList<>();
        slots.forEach((key, slot) -> {
            if (!isExpired(slot, now) && Glob.matches(pattern, key)) {
                keys.add(key);
            }
        });
        Collections.sort(keys);
        return keys;
    }

    /** Keys stored, expired ones not dropped yet included (DBSIZE). */
    int storedCount() {
        return slots.size();
    }

    void clear() {
        slots.clear();
    }

    void expireDue(long now) {
        slots.values().removeIf(slot -> isExpired(slot, now));
    }

    SortedMap<String, ModelRedis.Entry> snapshot(long now) {
        SortedMap<String, ModelRedis.Entry> view = new TreeMap<>();
        slots.forEach((key, slot) -> {
            if (!isExpired(slot, now)) {
                long pttl = slot.expireAt < 0 ? -1 : slot.expireAt - now;
                view.put(key, new ModelRedis.Entry(typeName(slot.value), frozenCopy(slot.value), pttl));
            }
        });
        return Collections.unmodifiableSortedMap(view);
    }

    static boolean isExpired(Slot slot, long now) {
        return slot.expireAt >= 0 && now > slot.expireAt;
    }

    static String typeName(Object value) {
        if (value instanceof String) {
            return "string";
        }
        if (value instanceof LinkedHashMap) {
            return "hash";
        }
        if (value instanceof ArrayList) {
            return "list";
        }
        if (value instanceof ZSet) {
            return "zset";
        }
        throw new IllegalStateException("not a value: " + value);
    }

    private static boolean isEmptyContainer(Object value) {
        return (value instanceof Map<?, ?> map && map.isEmpty())
                || (value instanceof List<?> list && list.isEmpty())
                || (value instanceof ZSet zset && zset.isEmpty());
    }

    @SuppressWarnings("unchecked")
    private static Object copyValue(Object value) {
        if (value instanceof LinkedHashMap<?, ?> hash) {
            return new LinkedHashMap<>((Map<String, String>) hash);
        }
        if (value instanceof ArrayList<?> list) {
            return new ArrayList<>(list);
        }
        if (value instanceof ZSet zset) {
            return zset.copy();
        }
        return value;
    }

    @SuppressWarnings("unchecked")
    private static Object frozenCopy(Object value) {
        if (value instanceof LinkedHashMap<?, ?> hash) {
            return Collections.unmodifiableMap(new LinkedHashMap<>((Map<String, String>) hash));
        }
        if (value instanceof ArrayList<?> list) {
            return List.copyOf((List<String>) list);
        }
        if (value instanceof ZSet zset) {
            return Collections.unmodifiableMap(zset.asMap());
        }
        return value;
    }
}
