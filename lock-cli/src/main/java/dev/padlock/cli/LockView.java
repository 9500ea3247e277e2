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
 * @param queue the places in line, in line order: see {@link Waiter}
 * @param waiting who waits, as far as Redis knows; null for a kind nobody waits for (ShedLock)
 * @param listeners subscriptions on the lock's unlock channel(s): clients ready to be woken
 * @param nowMillis Redis time when read, epoch ms
 */
record LockView(String name, String kind, String mode, long ttlMillis, List<Holder> holders, Long token,
        List<Waiter> queue, Waiting waiting, List<String> channels, long listeners, long nowMillis) {

    static final String SHEDLOCK = "shedlock";
    static final String NOT_A_LOCK = "not a lock";

    /** A key that is none of the locks the command knows. */
    static LockView notALock(String name, long ttlMillis, long nowMillis) {
        return new LockView(name, NOT_A_LOCK, null, ttlMillis, List.of(), null, List.of(), null, List.of(), 0, nowMillis);
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
     * @param threadId the owner id of its field (a thread's, or a lease handle's: negative); null
     *     for a ShedLock hold, whose token names a hold of its client rather than an owner
     * @param ownerKind whom {@code threadId} names, a thread or a lease; null for a ShedLock hold
     *     and for a field that is not {@code <clientId>:<ownerId>}
     * @param role {@code holder}, {@code reader} or {@code writer}
     * @param sinceMillis when it got the lock (Redis time, epoch ms), null when unknown
     * @param sinceNote why {@code sinceMillis} is unknown, null when it is known
     * @param ttlMillis its lease left: the lock's PTTL, or a reader's own longest lease
     * @param lease {@code watchdog}, {@code fixed}, {@code no expiry} or {@code unknown}: as far as
     *     Redis can tell (see {@link LockInspector#leaseOf})
     * @param client its registry entry, null when not registered
     */
    record Holder(String field, String clientId, Long threadId, OwnerKind ownerKind, String role, long holds,
            Long sinceMillis, String sinceNote, long ttlMillis, String lease, Map<String, String> client) {

        Map<String, Object> toMap(long nowMillis) {
            Map<String, Object> map = new LinkedHashMap<>();
            map.put("field", field);
            map.put("clientId", clientId);
            map.put("threadId", threadId);
            map.put("ownerKind", ownerKind == null ? null : ownerKind.json());
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
     * One place in a line, in line order: a plain lock's client line (one place per client, for
     * its first waiting thread), a fair lock's line or Redisson's fair queue, a read-write lock's
     * writers' line or readers' hall (one place per owner).
     *
     * @param ownerKind whom {@code threadId} names, a thread or a lease; null for a place whose
     *     field is not {@code <clientId>:<ownerId>}
     * @param place which line: {@code client line}, {@code fair line}, {@code Redisson's fair queue},
     *     {@code writers' line} or {@code readers' hall}
     * @param deadlineMillis when its place lapses unless its owner looks again (Redis time, epoch
     *     ms); null when it has none
     */
    record Waiter(String field, String clientId, long threadId, OwnerKind ownerKind, String place, Long deadlineMillis,
            Map<String, String> client) {

        Map<String, Object> toMap() {
            Map<String, Object> map = new LinkedHashMap<>();
            map.put("field", field);
            map.put("clientId", clientId);
            map.put("threadId", threadId);
            map.put("ownerKind", ownerKind == null ? null : ownerKind.json());
            map.put("place", place);
            map.put("deadlineMillis", deadlineMillis);
            putClient(map, client);
            return map;
        }
    }

    /**
     * Who waits, as far as Redis knows.
     *
     * @param owners how many owners wait, where Redis has one place per owner (fair, read-write);
     *     null where it cannot know (plain, fenced: threads within a client wait locally)
     * @param clients how many clients wait: the clients of {@code byClient}, plus
     *     {@code otherListeners}
     * @param note what the count means, in words
     * @param byClient each Padlock client seen waiting, the ones in line first
     * @param otherListeners subscriptions on the unlock channel that no Padlock client in
     *     {@code byClient} accounts for (Redisson's waiters, Padlock's fenced waiters), one per client
     */
    record Waiting(Long owners, long clients, String note, List<WaitingClient> byClient, long otherListeners) {

        Map<String, Object> toMap() {
            Map<String, Object> map = new LinkedHashMap<>();
            map.put("owners", owners);
            map.put("clients", clients);
            map.put("note", note);
            map.put("byClient", byClient.stream().map(WaitingClient::toMap).toList());
            map.put("otherListeners", otherListeners);
            return map;
        }
    }

    /**
     * One Padlock client with owners waiting.
     *
     * @param inLine whether it has a place in a line
     * @param owners how many of its owners have places; null where Redis has one place per client
     * @param note what Redis shows of it, in words
     */
    record WaitingClient(String clientId, boolean inLine, Long owners, String note, Map<String, String> client) {

        Map<String, Object> toMap() {
            Map<String, Object> map = new LinkedHashMap<>();
            map.put("clientId", clientId);
            map.put("inLine", inLine);
            map.put("owners", owners);
            map.put("note", note);
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
        if (waiting != null) {
            map.put("waiting", waiting.toMap());
        }
        map.put("channels", channels);
        map.put("listeners", listeners);
        map.put("redisTimeMillis", nowMillis);
        return map;
    }
}
