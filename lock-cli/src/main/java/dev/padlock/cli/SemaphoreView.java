package dev.padlock.cli;

import dev.padlock.spi.LockKeys;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code padlock show} of a semaphore (Redisson's formats, which Padlock's semaphores share): the
 * free permits in {@code <name>}, and for a permit-expirable one each permit in use from
 * {@code {<name>}:timeout} with when its lease ends, and the listeners on
 * {@code redisson_sc:{<name>}}. Plain reads only. Leases that ended still show until a client's
 * next call gives their permits back, and say so.
 *
 * @param freePermits the count as Redis holds it
 * @param permits the permits in use (permit-expirable only), by when their lease ends
 */
record SemaphoreView(String name, boolean expirable, long freePermits, List<Permit> permits, long listeners,
        long nowMillis) {
    /** Redisson's score for a permit without a lease. */
    static final double NO_LEASE = 922337203685477d;

    /** A permit in use: its id, and the epoch ms its lease ends (null: no lease). */
    record Permit(String id, Long endsMillis) {
    }

    /**
     * The semaphore named {@code name}, or null when the key is not one: neither a whole number
     * (a ShedLock token, another string) nor absent with permit leases.
     */
    static SemaphoreView inspect(Connection redis, String name) {
        RedisClusterAsyncCommands<String, String> c = redis.commands();
        String type = redis.await(c.type(name), "TYPE " + name);
        if (!"string".equals(type) && !"none".equals(type)) {
            return null; // a lock's hash, or another type: no more reads here
        }
        Long free = null;
        if ("string".equals(type)) {
            String value = redis.await(c.get(name), "GET " + name);
            try {
                free = Long.parseLong(value);
            } catch (NumberFormatException notACount) {
                return null; // a ShedLock token, or another string
            }
        }
        String leases = LockKeys.permitLeases(name);
        // ZRANGE only where there are permit leases, so that showing a lock needs no more than TYPE
        boolean expirable = "zset".equals(redis.await(c.type(leases), "TYPE " + leases));
        if (free == null && !expirable) {
            return null; // nothing under this name: a free lock
        }
        List<Permit> permits = new ArrayList<>();
        if (expirable) {
            for (ScoredValue<String> permit : redis.await(c.zrangeWithScores(leases, 0, -1), "ZRANGE " + leases)) {
                permits.add(new Permit(permit.getValue(), permit.getScore() >= NO_LEASE ? null : (long) permit.getScore()));
            }
        }
        String channel = LockKeys.semaphoreChannel(name);
        long listeners = redis.listeners(name, List.of(channel));
        return new SemaphoreView(name, expirable, free == null ? 0 : free, permits, listeners, redis.nowMillis());
    }

    String text() {
        StringBuilder out = new StringBuilder(name).append(": ")
                .append(expirable ? "permit-expirable semaphore, " : "semaphore, ")
                .append(Text.count(freePermits, "permit")).append(" free");
        if (expirable) {
            out.append(", ").append(permits.size()).append(" in use");
        }
        out.append('\n');
        for (Permit permit : permits) {
            out.append("  permit   ").append(permit.id()).append(", lease ");
            if (permit.endsMillis() == null) {
                out.append("without end (Redisson's acquire without a lease time)");
            } else if (permit.endsMillis() <= nowMillis) {
                out.append("ended ").append(Text.duration(nowMillis - permit.endsMillis()))
                        .append(" ago (free again at the next call of any client)");
            } else {
                out.append("ends in ").append(Text.duration(permit.endsMillis() - nowMillis));
            }
            out.append('\n');
        }
        out.append("  listeners ").append(Text.count(listeners, "subscription")).append(" on ")
                .append(LockKeys.semaphoreChannel(name)).append(" (waiters of every client)\n");
        return out.toString();
    }

    Map<String, Object> toMap() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("name", name);
        map.put("kind", expirable ? "permit-expirable semaphore" : "semaphore");
        map.put("freePermits", freePermits);
        List<Object> inUse = new ArrayList<>();
        for (Permit permit : permits) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("permitId", permit.id());
            entry.put("leaseEndsInMillis", permit.endsMillis() == null ? null : permit.endsMillis() - nowMillis);
            inUse.add(entry);
        }
        map.put("permits", inUse);
        map.put("listeners", listeners);
        return map;
    }
}
