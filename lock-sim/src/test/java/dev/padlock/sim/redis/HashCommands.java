package dev.padlock.sim.redis;

import static dev.padlock.sim.redis.CommandTable.add;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Hashes: HSET, HSETNX, HGET, HDEL, HEXISTS, HINCRBY, HLEN, HKEYS, HVALS, HGETALL, HMGET. */
final class HashCommands {

    private HashCommands() {
    }

    static void register() {
        add("hset", -4, HashCommands::hset);
        add("hsetnx", 4, (r, a) -> {
            Map<String, String> hash = write(r, a.get(1));
            return hash.putIfAbsent(a.get(2), a.get(3)) == null ? 1L : 0L;
        });
        add("hget", 3, (r, a) -> {
            Map<String, String> hash = read(r, a.get(1));
            return hash == null ? null : hash.get(a.get(2));
        });
        add("hdel", -3, HashCommands::hdel);
        add("hexists", 3, (r, a) -> {
            Map<String, String> hash = read(r, a.get(1));
            return hash != null && hash.containsKey(a.get(2)) ? 1L : 0L;
        });
        add("hincrby", 4, HashCommands::hincrby);
        add("hlen", 2, (r, a) -> {
            Map<String, String> hash = read(r, a.get(1));
            return hash == null ? 0L : (long) hash.size();
        });
        add("hkeys", 2, (r, a) -> {
            Map<String, String> hash = read(r, a.get(1));
            return hash == null ? new ArrayList<>() : new ArrayList<Object>(hash.keySet());
        });
        add("hvals", 2, (r, a) -> {
            Map<String, String> hash = read(r, a.get(1));
            return hash == null ? new ArrayList<>() : new ArrayList<Object>(hash.values());
        });
        add("hgetall", 2, (r, a) -> {
            Map<String, String> hash = read(r, a.get(1));
            List<Object> reply = new ArrayList<>();
            if (hash != null) {
                hash.forEach((field, value) -> {
                    reply.add(field);
                    reply.add(value);
                });
            }
            return reply;
        });
        add("hmget", -3, (r, a) -> {
            Map<String, String> hash = read(r, a.get(1));
            List<Object> reply = new ArrayList<>();
            for (String field : a.subList(2, a.size())) {
                reply.add(hash == null ? null : hash.get(field));
            }
            return reply;
        });
    }

    @SuppressWarnings("unchecked")
    static Map<String, String> read(ModelRedis r, String key) {
        return r.keyspace().get(key, r.now(), LinkedHashMap.class);
    }

    /** The hash at {@code key}, created empty (without expiry) when absent. */
    private static Map<String, String> write(ModelRedis r, String key) {
        Map<String, String> hash = read(r, key);
        if (hash == null) {
            hash = new LinkedHashMap<>();
            r.keyspace().put(key, hash);
        }
        return hash;
    }

    private static Object hset(ModelRedis r, List<String> a) {
        if (a.size() % 2 == 1) {
            throw CommandTable.arityError(a);
        }
        Map<String, String> hash = write(r, a.get(1));
        long created = 0;
        for (int i = 2; i < a.size(); i += 2) {
            if (hash.put(a.get(i), a.get(i + 1)) == null) {
                created++; // an update keeps the field's place, as a listpack does
            }
        }
        return created;
    }

    private static Object hdel(ModelRedis r, List<String> a) {
        Map<String, String> hash = read(r, a.get(1));
        if (hash == null) {
            return 0L;
        }
        long deleted = a.subList(2, a.size()).stream().filter(f -> hash.remove(f) != null).count();
        r.keyspace().removeIfEmpty(a.get(1));
        return deleted;
    }

    private static Object hincrby(ModelRedis r, List<String> a) {
        long by = RedisNumbers.requireLong(a.get(3));
        Map<String, String> hash = write(r, a.get(1));
        String old = hash.get(a.get(2));
        long value = 0;
        if (old != null) {
            Long parsed = RedisNumbers.parseLong(old);
            if (parsed == null) {
                r.keyspace().removeIfEmpty(a.get(1));
                throw new ModelRedisException("ERR hash value is not an integer");
            }
            value = parsed;
        }
        long result;
        try {
            result = Math.addExact(value, by);
        } catch (ArithmeticException e) {
            r.keyspace().removeIfEmpty(a.get(1));
            throw new ModelRedisException("ERR increment or decrement would overflow");
        }
        hash.put(a.get(2), Long.toString(result));
        return result;
    }
}
