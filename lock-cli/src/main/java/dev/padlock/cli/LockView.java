package dev.padlock.cli;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What Redis shows of one lock at one moment: its kind, holders, waiters, token and listeners.
 * {@link #toMap()} is the {@code --json} form (the contract names {@code name}, {@code kind},
 * {@code ttlMillis} and {@code holders}, each with {@code field}, {@code clientId},
 * {@code threadId}, {@code holds} and {@code client} when known); every number in it is a JSON
 * number.
 *
 * @param kind {@code plain}, {@code fair}, {@code fenced}, {@code read-write}, {@code shedlock}
 *     (a ShedLock string key), {@code free} (no lock key), or {@code not a lock} (a key of
 *     another shape)
 * @param mode a read-write lock's mode ({@code read} or {@code write}), else null
 * @param ttlMillis the lock key's PTTL: -2 when absent, -1 without expiry
 * @param token a fenced lock's last token (the current holder's while held), else null
 * @param listeners subscriptions on the lock's unlock channel(s): clients ready to be woken
 * @param nowMillis Redis time when read, epoch ms
 */
record LockView(String name, String kind, String mode, long ttlMillis, List<Holder> holders, Long token,
        List<Waiter> queue, List<String> channels, long listeners, long nowMillis) {

    static final String SHEDLOCK = "shedlock";
    static final String NOT_A_LOCK = "not a lock";

    /** A key that is none of the locks the command knows. */
    static LockView notALock(String name, long ttlMillis, long nowMillis) {
        return new LockView(name, NOT_A_LOCK, null, ttlMillis, List.of(), null, List.of(), List.of(), 0, nowMillis);
    }

    boolean held() {
        return !holders.isEmpty();
    }

    boolean isShedLock() {
        return SHEDLOCK.equals(kind);
    }

    /** When the key expires unless renewed, Redis time, epoch ms; null when it has no expiry or is absent. */
    Long untilMillis() {
        return ttlMillis >= 0 ? nowMillis + ttlMillis : null;
    }

    /**
     * One holder.
     *
     * @param threadId the thread id of its field; null for a ShedLock hold, whose token names a
     *     hold of its client rather than a thread
     * @param role {@code holder}, {@code reader} or {@code writer}
     * @param sinceMillis when it got the lock (Redis time, epoch ms), null when unknown (a holder
     *     that is not a Padlock client, e.g. Redisson)
     * @param sinceNote why {@code sinceMillis} is unknown, null when it is known
     * @param ttlMillis its lease left: the lock's PTTL, or a reader's own longest lease
     * @param lease {@code watchdog}, {@code fixed}, {@code no expiry} or {@code unknown}: as far as
     *     Redis can tell (see {@link LockInspector#leaseOf})
     * @param client its registry entry, null when not registered
     */
    record Holder(String field, String clientId, Long threadId, String role, long holds, Long sinceMillis,
            String sinceNote, long ttlMillis, String lease, Map<String, String> client) {

        Map<String, Object> toMap(long nowMillis) {
            Map<String, Object> map = new LinkedHashMap<>();
            map.put("field", field);
            map.put("clientId", clientId);
            map.put("threadId", threadId);
            map.put("role", role);
            map.put("holds", holds);
            map.put("sinceMillis", sinceMillis);
            if (sinceNote != null) {
                map.put("sinceNote", sinceNote);
            }
            map.put("heldForMillis", sinceMillis == null ? null : nowMillis - sinceMillis);
            map.put("ttlMillis", ttlMillis);
            map.put("lease", lease);
            putClient(map, client);
            return map;
        }
    }

    /**
     * A fair lock's waiter, in queue order.
     *
     * @param deadlineMillis when it loses its place unless it checks in (Redis time, epoch ms)
     */
    record Waiter(String field, String clientId, long threadId, Long deadlineMillis, Map<String, String> client) {

        Map<String, Object> toMap() {
            Map<String, Object> map = new LinkedHashMap<>();
            map.put("field", field);
            map.put("clientId", clientId);
            map.put("threadId", threadId);
            map.put("deadlineMillis", deadlineMillis);
            putClient(map, client);
            return map;
        }
    }

    /** {@code client}: the registry entry with its numbers as numbers, or null and {@code clientNote} saying why. */
    private static void putClient(Map<String, Object> map, Map<String, String> client) {
        map.put("client", Registry.json(client));
        if (client == null) {
            map.put("clientNote", Registry.NOT_REGISTERED);
        }
    }

    Map<String, Object> toMap() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("name", name);
        map.put("kind", kind);
        map.put("held", held());
        if (mode != null) {
            map.put("mode", mode);
        }
        map.put("ttlMillis", ttlMillis);
        if (isShedLock()) {
            map.put("untilMillis", untilMillis());
        }
        map.put("holders", holders.stream().map(h -> h.toMap(nowMillis)).toList());
        if (token != null) {
            map.put("token", token);
        }
        if ("fair".equals(kind) || !queue.isEmpty()) {
            map.put("queue", queue.stream().map(Waiter::toMap).toList());
        }
        map.put("channels", channels);
        map.put("listeners", listeners);
        map.put("redisTimeMillis", nowMillis);
        return map;
    }
}
