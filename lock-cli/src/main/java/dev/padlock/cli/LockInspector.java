package dev.padlock.cli;

import dev.padlock.spi.LockKeys;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads one lock's state from Redis into a {@link LockView}: plain reads (TYPE, HGETALL, PTTL, GET,
 * LRANGE, ZSCORE, PUBSUB), no script and no write, so it can run against a production Redis at
 * any time. The state is read in several calls, not atomically: a lock that changes meanwhile
 * may show a mix of both moments.
 *
 * <p>The kind comes from the keys: a string holding a ShedLock token is ShedLock's (see
 * {@link ShedLocks}); a hash with a {@code mode} field is a read-write lock; a
 * token counter {@code redisson_lock_token:{name}} makes it fenced; a line of places
 * ({@code padlock_fair_queue:{name}}) makes it fair. A fair lock nobody waits for has no line and
 * shows as plain.
 */
final class LockInspector {
    /** Slack when telling a watchdog lease from a fixed one: timer and network delays. */
    static final long LEASE_SLACK_MILLIS = 1_000;
    /** The watchdog timeout assumed for a holder whose client is not in the registry (both libraries' default). */
    static final long DEFAULT_WATCHDOG_MILLIS = 30_000;
    /** Why a holder whose client is not in the registry has no since: it did not write one. */
    static final String REDISSON_SINCE = "Redisson does not record when a lock was taken";
    /** Why a Padlock holder has no since. */
    static final String NO_SINCE_YET = "not on Redis: a fair lock's grantee writes it a moment after its grant";
    /** Why a Padlock reader has no since. */
    static final String NO_READER_SINCE = "not on Redis: a reader's since is kept in its first hold's lease key, "
            + "gone once that hold is released";

    private final Connection redis;
    private final Registry registry;

    LockInspector(Connection redis) {
        this.redis = redis;
        this.registry = new Registry(redis);
    }

    LockView inspect(String name) {
        RedisClusterAsyncCommands<String, String> c = redis.commands();
        long now = redis.nowMillis();
        String type = redis.await(c.type(name), "TYPE " + name);
        long ttl = redis.await(c.pttl(name), "PTTL " + name);
        if ("string".equals(type)) {
            String value = redis.await(c.get(name), "GET " + name);
            String clientId = ShedLocks.clientIdOf(value, registry);
            return clientId == null ? LockView.notALock(name, ttl, now)
                    : ShedLocks.view(name, value, clientId, ttl, now, registry);
        }
        if (!"none".equals(type) && !"hash".equals(type)) {
            return LockView.notALock(name, ttl, now);
        }
        String tokenText = redis.await(c.get(LockKeys.fencingTokens(name)), "GET token");
        Long token = tokenText == null ? null : Long.valueOf(tokenText);
        List<String> queueFields = redis.await(c.lrange(LockKeys.fairQueue(name), 0, -1), "LRANGE queue");
        boolean fairKeys = !queueFields.isEmpty();
        Map<String, String> hash = "hash".equals(type) ? redis.await(c.hgetall(name), "HGETALL " + name) : Map.of();
        Map<String, String> since = redis.await(c.hgetall(LockKeys.since(name)), "HGETALL since");
        String mode = hash.get("mode");

        String kind;
        List<String> channels = new ArrayList<>();
        if (mode != null) {
            kind = "read-write";
            channels.add(LockKeys.readWriteChannel(name));
        } else {
            kind = token != null ? "fenced" : fairKeys ? "fair" : hash.isEmpty() ? "free" : "plain";
            if (!fairKeys) {
                channels.add(LockKeys.unlockChannel(name)); // a fair lock's waiters: their clients' grant channels
            }
        }

        List<LockView.Holder> holders = new ArrayList<>();
        for (Map.Entry<String, String> field : hash.entrySet()) {
            if (field.getKey().equals("mode")) {
                continue;
            }
            boolean writer = field.getKey().endsWith(":write");
            String owner = writer ? field.getKey().substring(0, field.getKey().length() - ":write".length()) : field.getKey();
            long holds = parseLong(field.getValue());
            long holderTtl = ttl;
            String role = "holder";
            if (mode != null) {
                role = writer ? "writer" : "reader";
                if (!writer) {
                    holderTtl = readerLease(name, owner, holds);
                }
            }
            String clientId = clientIdOf(owner);
            Map<String, String> client = registry.entry(clientId);
            String sinceText = mode != null && !writer ? readerSince(name, owner) : since.get(field.getKey());
            if (sinceText == null && mode == null) {
                // a local hand-off keeps the entry of the client's first holder: since when its client holds it
                sinceText = since.entrySet().stream().filter(e -> clientIdOf(e.getKey()).equals(clientId))
                        .map(Map.Entry::getValue).findFirst().orElse(null);
            }
            Long sinceMillis = sinceText == null ? null : Long.valueOf(sinceText);
            String sinceNote = sinceMillis != null ? null : client == null ? REDISSON_SINCE
                    : mode != null && !writer ? NO_READER_SINCE : NO_SINCE_YET;
            holders.add(new LockView.Holder(field.getKey(), clientId, threadIdOf(owner), role, holds, sinceMillis,
                    sinceNote, holderTtl, leaseOf(holderTtl, sinceMillis, now, client), client));
        }
        holders.sort((a, b) -> Long.compare(a.sinceMillis() == null ? Long.MAX_VALUE : a.sinceMillis(),
                b.sinceMillis() == null ? Long.MAX_VALUE : b.sinceMillis()));

        List<LockView.Waiter> queue = new ArrayList<>();
        for (String place : queueFields) {
            // <clientId>:<threadId>:<lease ms>:<nonce>: its client hears grants on its grant channel
            int nonceAt = place.lastIndexOf(':');
            int leaseAt = nonceAt < 0 ? -1 : place.lastIndexOf(':', nonceAt - 1);
            String field = leaseAt < 0 ? place : place.substring(0, leaseAt);
            String clientId = clientIdOf(field);
            queue.add(new LockView.Waiter(field, clientId, threadIdOf(field), null, registry.entry(clientId)));
            addOnce(channels, LockKeys.grantChannelPrefix(name) + clientId);
        }
        if (mode == null && queueFields.isEmpty()) {
            // the plain lock's line of waiting clients (Padlock's own), each with its place's owner
            List<String> line = redis.await(c.lrange(LockKeys.waiterQueue(name), 0, -1), "LRANGE line");
            for (String clientId : line) {
                String placeKey = LockKeys.waiterPlacePrefix(name) + clientId;
                String place = redis.await(c.get(placeKey), "GET place");
                if (place == null) {
                    continue; // its place expired: a release will drop it
                }
                long placeTtl = redis.await(c.pttl(placeKey), "PTTL place");
                String threadId = place.substring(0, place.indexOf(':'));
                String field = clientId + ":" + threadId;
                queue.add(new LockView.Waiter(field, clientId, threadIdOf(field),
                        placeTtl < 0 ? null : now + placeTtl, registry.entry(clientId)));
            }
        }
        if (mode != null || hash.isEmpty()) {
            // a read-write lock's writers in line (Padlock's own places, <field>:<lease>:<nonce>),
            // each with its deadline, granted on its client's grant channel
            for (String place : redis.await(c.lrange(LockKeys.readWriteLine(name), 0, -1), "LRANGE writers")) {
                int end = place.lastIndexOf(":write:");
                String writer = end < 0 ? place : place.substring(0, end + ":write".length());
                String owner = writer.endsWith(":write") ? writer.substring(0, writer.length() - ":write".length()) : writer;
                Double deadline = redis.await(c.zscore(LockKeys.readWriteDeadlines(name), place), "ZSCORE deadline");
                String clientId = clientIdOf(owner);
                queue.add(new LockView.Waiter(writer, clientId, threadIdOf(owner),
                        deadline == null ? null : deadline.longValue(), registry.entry(clientId)));
                addOnce(channels, LockKeys.grantChannelPrefix(name) + clientId);
            }
            // and its readers in the hall, which the next write release grants
            String hall = LockKeys.readWriteReaders(name);
            Map<String, String> readers = redis.await(c.hgetall(hall), "HGETALL readers");
            if (!readers.isEmpty()) {
                long hallTtl = redis.await(c.pttl(hall), "PTTL readers");
                for (String reader : readers.keySet()) {
                    String clientId = clientIdOf(reader);
                    queue.add(new LockView.Waiter(reader, clientId, threadIdOf(reader),
                            hallTtl < 0 ? null : now + hallTtl, registry.entry(clientId)));
                    addOnce(channels, LockKeys.grantChannelPrefix(name) + clientId);
                }
            }
        }
        long listeners = redis.listeners(name, channels);
        return new LockView(name, kind, mode, ttl, holders, token, queue, channels, listeners, now);
    }

    private static void addOnce(List<String> channels, String channel) {
        if (!channels.contains(channel)) {
            channels.add(channel);
        }
    }

    /** A reader's lease: the longest PTTL of its holds' lease keys ({@code {name}:<field>:rwlock_timeout:<n>}). */
    private long readerLease(String name, String readerField, long holds) {
        long longest = -2;
        String prefix = LockKeys.readLeaseBase(name) + ':' + readerField + ":rwlock_timeout:";
        for (long n = 1; n <= Math.min(holds, 1_000); n++) {
            longest = Math.max(longest, redis.await(redis.commands().pttl(prefix + n), "PTTL read lease"));
        }
        return longest;
    }

    /**
     * A Padlock reader's since: the value of its first hold's lease key
     * ({@code {name}:<field>:rwlock_timeout:1}, epoch ms); null for a Redisson reader, whose value is 1.
     */
    private String readerSince(String name, String readerField) {
        String value = redis.await(redis.commands().get(LockKeys.readLeaseBase(name) + ':' + readerField
                + ":rwlock_timeout:1"), "GET read lease");
        return value == null || value.length() < 10 || !value.chars().allMatch(Character::isDigit) ? null : value;
    }

    /**
     * Whether a lease is the watchdog's or fixed, as far as Redis can tell. A watchdog lease is
     * set to the client's watchdog timeout W and renewed every W/3, so its TTL never exceeds W,
     * and once renewed, the time held plus the TTL passes W; a fixed lease L keeps held + TTL = L.
     * So: a TTL above W, or below 2W/3 (the watchdog would have renewed it), is fixed; otherwise
     * held + TTL of at least W is a watchdog lease (renewed, or not yet: a fixed lease of exactly W,
     * or a longer one late in its life, looks the same), below W fixed. Without "since" (a Redisson
     * holder) Redis cannot tell.
     */
    static String leaseOf(long ttl, Long sinceMillis, long nowMillis, Map<String, String> client) {
        if (ttl == -1) {
            return "no expiry";
        }
        if (ttl < 0 || sinceMillis == null) {
            return "unknown";
        }
        long watchdog = client == null ? DEFAULT_WATCHDOG_MILLIS : parseLong(client.getOrDefault("watchdogMillis", "30000"));
        long total = nowMillis - sinceMillis + ttl;
        if (ttl > watchdog + LEASE_SLACK_MILLIS || ttl < watchdog * 2 / 3 - LEASE_SLACK_MILLIS) {
            return "fixed";
        }
        if (total >= watchdog - LEASE_SLACK_MILLIS) {
            return "watchdog";
        }
        return "fixed";
    }

    /** {@code <clientId>} of an owner field {@code <clientId>:<threadId>}. */
    static String clientIdOf(String ownerField) {
        int colon = ownerField.lastIndexOf(':');
        return colon < 0 ? ownerField : ownerField.substring(0, colon);
    }

    /** {@code <threadId>} of an owner field, -1 when it has none. */
    static long threadIdOf(String ownerField) {
        int colon = ownerField.lastIndexOf(':');
        return colon < 0 ? -1 : parseLong(ownerField.substring(colon + 1));
    }

    private static long parseLong(String text) {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
