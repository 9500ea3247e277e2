package dev.padlock.cli;

import static dev.padlock.cli.LockInspector.clientIdOf;
import static dev.padlock.cli.LockInspector.threadIdOf;

import dev.padlock.spi.LockKeys;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Who waits for one lock, as far as Redis knows it: the lines and the hall (one place per owner
 * for a fair or read-write lock, one per client for a plain lock, whose other threads wait
 * locally in their client), the clients that listen on their grant channel for the lock, and the
 * subscriptions on its unlock channel. Plain reads (LRANGE, GET, PTTL, HGETALL, ZSCORE, PUBSUB).
 */
final class WaitingReader {
    static final String PER_CLIENT = "threads within a client wait locally; Redis sees one place per client";
    static final String PER_OWNER = "one place per owner";
    static final String IN_LINE = "in line: its place names its first waiting thread; more of its threads may wait "
            + "behind it in the client";
    static final String BEHIND_ITS_HOLDER = "no place in line: its threads wait locally behind its own holder "
            + "(it listens on its grant channel; a client that stopped waiting listens a few seconds more)";
    static final String LISTENING = "no place in line: it listens on its grant channel for this lock "
            + "(a client that stopped waiting listens a few seconds more)";

    private final Connection redis;
    private final Registry registry;
    private final String name;
    private final long nowMillis;

    WaitingReader(Connection redis, Registry registry, String name, long nowMillis) {
        this.redis = redis;
        this.registry = registry;
        this.name = name;
        this.nowMillis = nowMillis;
    }

    /** Padlock's fair line: places {@code <clientId>:<threadId>:<lease ms>:<nonce>}, first come first. */
    List<LockView.Waiter> fairLine() {
        List<LockView.Waiter> line = new ArrayList<>();
        for (String place : range(LockKeys.fairQueue(name))) {
            int nonceAt = place.lastIndexOf(':');
            int leaseAt = nonceAt < 0 ? -1 : place.lastIndexOf(':', nonceAt - 1);
            line.add(waiter(leaseAt < 0 ? place : place.substring(0, leaseAt), "fair line", null));
        }
        return line;
    }

    /** Redisson's fair queue: the fields of Redisson's {@code RFairLock} waiters, with their deadlines. */
    List<LockView.Waiter> redissonFairQueue() {
        List<LockView.Waiter> queue = new ArrayList<>();
        for (String field : range(LockKeys.redissonFairQueue(name))) {
            Double deadline = redis.await(redis.commands().zscore(LockKeys.redissonFairDeadlines(name), field),
                    "ZSCORE Redisson's deadline");
            queue.add(waiter(field, "Redisson's fair queue", deadline == null ? null : deadline.longValue()));
        }
        return queue;
    }

    /** A plain lock's client line: per client in line, the owner its place names, with the place's deadline. */
    List<LockView.Waiter> clientLine() {
        RedisClusterAsyncCommands<String, String> c = redis.commands();
        List<LockView.Waiter> line = new ArrayList<>();
        for (String clientId : range(LockKeys.waiterQueue(name))) {
            String placeKey = LockKeys.waiterPlacePrefix(name) + clientId;
            String place = redis.await(c.get(placeKey), "GET place");
            if (place == null) {
                continue; // its place expired: a release will drop it
            }
            long placeTtl = redis.await(c.pttl(placeKey), "PTTL place");
            int colon = place.indexOf(':');
            String field = clientId + ":" + (colon < 0 ? place : place.substring(0, colon));
            line.add(waiter(field, "client line", placeTtl < 0 ? null : nowMillis + placeTtl));
        }
        return line;
    }

    /** A read-write lock's writers in line (places {@code <field>:write:<lease>:<nonce>}), with their deadlines. */
    List<LockView.Waiter> writersLine() {
        List<LockView.Waiter> line = new ArrayList<>();
        for (String place : range(LockKeys.readWriteLine(name))) {
            int end = place.lastIndexOf(":write:");
            String writer = end < 0 ? place : place.substring(0, end + ":write".length());
            Double deadline = redis.await(redis.commands().zscore(LockKeys.readWriteDeadlines(name), place),
                    "ZSCORE deadline");
            line.add(waiter(writer, "writers' line", deadline == null ? null : deadline.longValue()));
        }
        return line;
    }

    /** A read-write lock's readers in the hall, which the next write release grants. */
    List<LockView.Waiter> readersHall() {
        String hall = LockKeys.readWriteReaders(name);
        Map<String, String> readers = redis.await(redis.commands().hgetall(hall), "HGETALL readers");
        if (readers.isEmpty()) {
            return List.of();
        }
        long hallTtl = redis.await(redis.commands().pttl(hall), "PTTL readers");
        List<LockView.Waiter> waiting = new ArrayList<>();
        for (String reader : new TreeSet<>(readers.keySet())) {
            waiting.add(waiter(reader, "readers' hall", hallTtl < 0 ? null : nowMillis + hallTtl));
        }
        return waiting;
    }

    /**
     * The Padlock clients listening on their grant channel for this lock: a client listens while
     * it has owners waiting for the lock, whether or not one has a place (and a few seconds more).
     */
    Set<String> grantListeners() {
        String prefix = LockKeys.grantChannelPrefix(name);
        Set<String> clients = new TreeSet<>();
        for (String channel : redis.channels(name, Connection.globEscaped(prefix) + "*")) {
            clients.add(channel.substring(prefix.length()));
        }
        return clients;
    }

    /**
     * Waiting where each owner has its own place (fair, read-write): the count is exact.
     *
     * @param breakdown how the places divide, e.g. {@code 1 writer in line, 2 readers in the hall}
     */
    LockView.Waiting ofOwners(List<LockView.Waiter> places, String breakdown) {
        Map<String, Long> owners = new LinkedHashMap<>();
        for (LockView.Waiter w : places) {
            owners.merge(w.clientId(), 1L, Long::sum);
        }
        List<LockView.WaitingClient> byClient = new ArrayList<>();
        owners.forEach((clientId, count) ->
                byClient.add(new LockView.WaitingClient(clientId, true, count, null, registry.entry(clientId))));
        String note = places.isEmpty() ? PER_OWNER : breakdown + "; " + PER_OWNER;
        return new LockView.Waiting((long) places.size(), byClient.size(), note, byClient, 0);
    }

    /**
     * Waiting where Redis sees clients, not threads (plain, fenced): the clients in line, then
     * those listening on their grant channel without a place, then the subscriptions on the unlock
     * channel that none of them accounts for (each client subscribes once).
     */
    LockView.Waiting ofClients(List<LockView.Waiter> line, Set<String> listening, Set<String> holderClients,
            long unlockListeners) {
        Set<String> seen = new LinkedHashSet<>();
        List<LockView.WaitingClient> byClient = new ArrayList<>();
        for (LockView.Waiter w : line) {
            if (seen.add(w.clientId())) {
                byClient.add(new LockView.WaitingClient(w.clientId(), true, null, IN_LINE, w.client()));
            }
        }
        for (String clientId : listening) {
            if (seen.add(clientId)) {
                byClient.add(new LockView.WaitingClient(clientId, false, null,
                        holderClients.contains(clientId) ? BEHIND_ITS_HOLDER : LISTENING, registry.entry(clientId)));
            }
        }
        long others = Math.max(0, unlockListeners - byClient.size());
        return new LockView.Waiting(null, byClient.size() + others, PER_CLIENT, byClient, others);
    }

    private LockView.Waiter waiter(String field, String place, Long deadlineMillis) {
        String owner = stripWrite(field);
        String clientId = clientIdOf(owner);
        return new LockView.Waiter(field, clientId, threadIdOf(owner), OwnerKind.ofField(owner), place, deadlineMillis,
                registry.entry(clientId));
    }

    private static String stripWrite(String field) {
        return field.endsWith(":write") ? field.substring(0, field.length() - ":write".length()) : field;
    }

    private List<String> range(String key) {
        return redis.await(redis.commands().lrange(key, 0, -1), "LRANGE " + key);
    }
}
