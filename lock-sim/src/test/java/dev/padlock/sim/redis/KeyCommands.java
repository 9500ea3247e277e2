package dev.padlock.sim.redis;

import static dev.padlock.sim.redis.CommandTable.add;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Strings and the commands on any key: GET, SET, INCR, DECR, INCRBY, DECRBY, DEL, EXISTS, TYPE,
 * KEYS, DBSIZE, FLUSHALL and expiry.
 */
final class KeyCommands {

    private KeyCommands() {
    }

    static void register() {
        add("get", 2, (r, a) -> r.keyspace().get(a.get(1), r.now(), String.class));
        add("set", -3, KeyCommands::set);
        add("incr", 2, (r, a) -> incrBy(r, a.get(1), 1));
        add("decr", 2, (r, a) -> incrBy(r, a.get(1), -1));
        add("incrby", 3, (r, a) -> incrBy(r, a.get(1), RedisNumbers.requireLong(a.get(2))));
        add("decrby", 3, KeyCommands::decrBy);
        add("del", -2, (r, a) -> a.subList(1, a.size()).stream().filter(k -> r.keyspace().remove(k, r.now())).count());
        add("exists", -2, (r, a) -> a.subList(1, a.size()).stream()
                .filter(k -> r.keyspace().lookup(k, r.now()) != null).count());
        add("type", 2, (r, a) -> {
            Keyspace.Slot slot = r.keyspace().lookup(a.get(1), r.now());
            return new Status(slot == null ? "none" : Keyspace.typeName(slot.value));
        });
        add("keys", 2, (r, a) -> new ArrayList<Object>(r.keyspace().keys(a.get(1), r.now())));
        add("dbsize", 1, (r, a) -> (long) r.keyspace().storedCount());
        add("flushall", -1, KeyCommands::flushAll);
        add(new CommandTable.Command("pexpire", -3, 3, 6, false, (r, a) -> expire(r, a, r.now(), 1)));
        add(new CommandTable.Command("expire", -3, 3, 6, false, (r, a) -> expire(r, a, r.now(), 1000)));
        add(new CommandTable.Command("pexpireat", -3, 3, 6, false, (r, a) -> expire(r, a, 0, 1)));
        add(new CommandTable.Command("expireat", -3, 3, 6, false, (r, a) -> expire(r, a, 0, 1000)));
        add("persist", 2, (r, a) -> {
            Keyspace.Slot slot = r.keyspace().lookup(a.get(1), r.now());
            if (slot == null || slot.expireAt < 0) {
                return 0L;
            }
            slot.expireAt = -1;
            return 1L;
        });
        add("pttl", 2, (r, a) -> ttl(r, a.get(1), true));
        add("ttl", 2, (r, a) -> ttl(r, a.get(1), false));
    }

    /** SET key value [NX|XX] [GET] [EX s|PX ms|EXAT s|PXAT ms|KEEPTTL], as t_string.c parses it. */
    private static Object set(ModelRedis r, List<String> a) {
        boolean nx = false;
        boolean xx = false;
        boolean get = false;
        boolean keepTtl = false;
        String expireUnit = null;
        String expireArg = null;
        for (int j = 3; j < a.size(); j++) {
            String opt = a.get(j).toUpperCase(Locale.ROOT);
            boolean hasNext = j + 1 < a.size();
            boolean anyExpire = expireUnit != null;
            if (opt.equals("NX") && !xx && !(get && r.majorVersion() < 7)) {
                nx = true;
            } else if (opt.equals("XX") && !nx) {
                xx = true;
            } else if (opt.equals("GET") && !(nx && r.majorVersion() < 7)) {
                get = true;
            } else if (opt.equals("KEEPTTL") && !anyExpire) {
                keepTtl = true;
            } else if ((opt.equals("EX") || opt.equals("PX") || opt.equals("EXAT") || opt.equals("PXAT"))
                    && !keepTtl && (!anyExpire || expireUnit.equals(opt)) && hasNext) {
                expireUnit = opt;
                expireArg = a.get(++j);
            } else {
                throw ModelRedisException.syntax();
            }
        }
        long when = -1;
        if (expireUnit != null) {
            long amount = RedisNumbers.requireLong(expireArg);
            boolean seconds = expireUnit.startsWith("EX");
            if (amount <= 0 || (seconds && amount > Long.MAX_VALUE / 1000)) {
                throw invalidExpire(r, "set");
            }
            when = seconds ? amount * 1000 : amount;
            if (expireUnit.equals("EX") || expireUnit.equals("PX")) {
                when += r.now();
            }
            if (when <= 0) {
                throw invalidExpire(r, "set");
            }
        }
        String key = a.get(1);
        Keyspace.Slot old = r.keyspace().lookup(key, r.now());
        boolean found = old != null;
        Object previous = null;
        if (r.majorVersion() >= 7 && get) {
            previous = r.keyspace().get(key, r.now(), String.class);
        }
        if ((nx && found) || (xx && !found)) {
            return get ? previous : null;
        }
        if (r.majorVersion() < 7 && get) {
            previous = r.keyspace().get(key, r.now(), String.class);
        }
        long keptExpiry = keepTtl && found ? old.expireAt : -1;
        Keyspace.Slot slot = r.keyspace().put(key, a.get(2));
        slot.expireAt = when >= 0 ? when : keptExpiry;
        return get ? previous : Status.OK;
    }

    /**
     * DECRBY, as t_string.c's decrbyCommand: the decrement is read first, and LLONG_MIN, which has
     * no negation, is refused on Redis 7. Redis 6.2 negates it in C, which wraps to LLONG_MIN
     * itself (as Java's negation does): the differential test saw a 6.2 server add it.
     */
    private static Object decrBy(ModelRedis r, List<String> a) {
        long by = RedisNumbers.requireLong(a.get(2));
        if (by == Long.MIN_VALUE && r.majorVersion() >= 7) {
            throw new ModelRedisException("ERR decrement would overflow");
        }
        return incrBy(r, a.get(1), -by);
    }

    private static Object incrBy(ModelRedis r, String key, long by) {
        Keyspace.Slot slot = r.keyspace().lookup(key, r.now());
        long value = 0;
        if (slot != null) {
            if (!(slot.value instanceof String text)) {
                throw ModelRedisException.wrongType();
            }
            value = RedisNumbers.requireLong(text);
        }
        long result;
        try {
            result = Math.addExact(value, by);
        } catch (ArithmeticException e) {
            throw new ModelRedisException("ERR increment or decrement would overflow");
        }
        if (slot == null) {
            r.keyspace().put(key, Long.toString(result));
        } else {
            slot.value = Long.toString(result); // INCR keeps the TTL
        }
        return result;
    }

    private static Object flushAll(ModelRedis r, List<String> a) {
        if (a.size() > 2
                || (a.size() == 2 && !a.get(1).equalsIgnoreCase("async") && !a.get(1).equalsIgnoreCase("sync"))) {
            throw ModelRedisException.syntax();
        }
        r.keyspace().clear();
        return Status.OK;
    }

    /** EXPIRE family, as expire.c's expireGenericCommand (options from Redis 7). */
    private static Object expire(ModelRedis r, List<String> a, long basetime, long unit) {
        boolean nx = false;
        boolean xx = false;
        boolean gt = false;
        boolean lt = false;
        for (String option : a.subList(3, a.size())) {
            switch (option.toLowerCase(Locale.ROOT)) {
                case "nx" -> nx = true;
                case "xx" -> xx = true;
                case "gt" -> gt = true;
                case "lt" -> lt = true;
                default -> throw new ModelRedisException("ERR Unsupported option " + option);
            }
        }
        if (nx && (xx || gt || lt)) {
            throw new ModelRedisException("ERR NX and XX, GT or LT options at the same time are not compatible");
        }
        if (gt && lt) {
            throw new ModelRedisException("ERR GT and LT options at the same time are not compatible");
        }
        String name = a.get(0).toLowerCase(Locale.ROOT);
        long when;
        try {
            when = Math.addExact(Math.multiplyExact(RedisNumbers.requireLong(a.get(2)), unit), basetime);
        } catch (ArithmeticException e) {
            throw invalidExpire(r, name);
        }
        Keyspace.Slot slot = r.keyspace().lookup(a.get(1), r.now());
        if (slot == null) {
            return 0L;
        }
        long current = slot.expireAt;
        if ((nx && current != -1) || (xx && current == -1)) {
            return 0L;
        }
        if (gt && (current == -1 || when <= current)) {
            return 0L; // no TTL counts as infinite: GT never beats it
        }
        if (lt && current != -1 && when >= current) {
            return 0L;
        }
        if (when <= r.now()) {
            r.keyspace().remove(a.get(1), r.now()); // checkAlreadyExpired: deleted at once
        } else {
            slot.expireAt = when;
        }
        return 1L;
    }

    private static Object ttl(ModelRedis r, String key, boolean millis) {
        Keyspace.Slot slot = r.keyspace().lookup(key, r.now());
        if (slot == null) {
            return -2L;
        }
        if (slot.expireAt < 0) {
            return -1L;
        }
        long ttl = Math.max(0, slot.expireAt - r.now());
        return millis ? ttl : (ttl + 500) / 1000;
    }

    private static ModelRedisException invalidExpire(ModelRedis r, String command) {
        return new ModelRedisException(r.majorVersion() >= 7 ? "ERR invalid expire time in '" + command + "' command"
                : "ERR invalid expire time in " + command);
    }
}
