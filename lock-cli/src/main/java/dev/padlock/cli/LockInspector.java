package dev.padlock.cli;

import dev.padlock.spi.LockKeys;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads one lock's state from Redis into a {@link LockView}: plain reads (TYPE, GET, HGETALL,
 * PTTL, LRANGE, ZSCORE, PUBSUB), no script and no write, so it can run against a production Redis
 * at any time. The state is read in several calls, not atomically: a lock that changes meanwhile
 * may show a mix of both moments.
 *
 * <p>The kind comes from the keys: a string holding a ShedLock token is ShedLock's (see
 * {@link ShedLocks}); a hash with a {@code mode} field is a read-write lock; a token counter
 * {@code redisson_lock_token:{name}} makes it fenced; a line of places
 * ({@code padlock_fair_queue:{name}}, or Redisson's {@code redisson_lock_queue:{name}}) makes it
 * fair. A fair lock nobody waits for has no line and shows as plain. Who waits comes from
 * {@link WaitingReader}.
 */
final class LockInspector {
    /** Slack when telling a watchdog lease from a fixed one: timer and network delays. */
    static final long LEASE_SLACK_MILLIS = 1_000;
    /** The watchdog timeout assumed for a holder whose client is not in the registry (both libraries' default). */
    static final long DEFAULT_WATCHDOG_MILLIS = 30_000;
    /** Why a holder whose client is not in the registry has no since: it did not write one. */
    static final String REDISSON_SINCE = "Redisson does not record when a lock was taken";
    /** Why a Padlock holder has no since. */
    static final String NO_SINCE_YET = "not on Redis yet: the holder's client notes it once the hold has lasted a"
            + " second (a fair lock's grantee, a moment after its grant)";
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
        Map<String, String> hash = "hash".equals(type) ? redis.await(c.hgetall(name), "HGETALL " + name) : Map.of();
        Map<String, String> since = redis.await(c.hgetall(LockKeys.since(name)), "HGETALL since");
        String mode = hash.get("mode");
        WaitingReader waiters = new WaitingReader(redis, registry, name, now);
        List<LockView.Waiter> fairLine = new ArrayList<>();
        if (mode == null) {
            fairLine.addAll(waiters.fairLine());
            fairLine.addAll(waiters.redissonFairQueue());
        }

        String kind = mode != null ? "read-write" : token != null ? "fenced" : !fairLine.isEmpty() ? "fair"
                : hash.isEmpty() ? "free" : "plain";
        List<LockView.Holder> holders = holders(name, hash, since, mode, ttl, now);

        List<LockView.Waiter> queue = new ArrayList<>();
        List<String> channels = new ArrayList<>();
        LockView.Waiting waiting;
        List<LockView.Waiter> writers = mode != null || hash.isEmpty() ? waiters.writersLine() : List.of();
        List<LockView.Waiter> readers = mode != null || hash.isEmpty() ? waiters.readersHall() : List.of();
        if (!fairLine.isEmpty()) {
            queue.addAll(fairLine);
            for (LockView.Waiter w : fairLine) {
                // Padlock's fair waiters hear grants on their client's channel, Redisson's on their own
                addOnce(channels, "fair line".equals(w.place()) ? LockKeys.grantChannelPrefix(name) + w.clientId()
                        : LockKeys.unlockChannel(name) + ':' + w.field());
            }
            long padlocks = fairLine.stream().filter(w -> "fair line".equals(w.place())).count();
            waiting = waiters.ofOwners(fairLine, padlocks + " in the fair line"
                    + (fairLine.size() > padlocks ? ", " + (fairLine.size() - padlocks) + " in Redisson's fair queue" : ""));
        } else if (mode != null || !writers.isEmpty() || !readers.isEmpty()) {
            channels.add(LockKeys.readWriteChannel(name));
            queue.addAll(writers);
            queue.addAll(readers);
            queue.forEach(w -> addOnce(channels, LockKeys.grantChannelPrefix(name) + w.clientId()));
            waiting = waiters.ofOwners(queue, Text.count(writers.size(), "writer") + " in line, "
                    + Text.count(readers.size(), "reader") + " in the hall");
        } else {
            channels.add(LockKeys.unlockChannel(name));
            queue.addAll(waiters.clientLine());
            Set<String> holderClients = new HashSet<>();
            holders.forEach(h -> holderClients.add(h.clientId()));
            long listeners = redis.listeners(name, channels);
            waiting = waiters.ofClients(queue, waiters.grantListeners(), holderClients, listeners);
            return new LockView(name, kind, mode, ttl, holders, token, queue, waiting, channels, listeners, now);
        }
        long listeners = redis.listeners(name, channels);
        return new LockView(name, kind, mode, ttl, holders, token, queue, waiting, channels, listeners, now);
    }

    /** The owners in the lock hash, the longest held first. */
    private List<LockView.Holder> holders(String name, Map<String, String> hash, Map<String, String> since, String mode,
            long ttl, long now) {
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
            boolean reader = mode != null && !writer;
            if (mode != null) {
                role = writer ? "writer" : "reader";
                if (reader) {
                    holderTtl = readerLease(name, owner, holds);
                }
            }
            String clientId = clientIdOf(owner);
            Map<String, String> client = registry.entry(clientId);
            String sinceText = reader ? readerSince(name, owner) : since.get(field.getKey());
            if (sinceText == null && mode == null) {
                // a local hand-off keeps the entry of the client's first holder: since when its client holds it
                sinceText = since.entrySet().stream().filter(e -> clientIdOf(e.getKey()).equals(clientId))
                        .map(Map.Entry::getValue).findFirst().orElse(null);
            }
            Long sinceMillis = sinceText == null ? null : Long.valueOf(sinceText);
            String sinceNote = sinceMillis != null ? null : client == null ? REDISSON_SINCE
                    : reader ? NO_READER_SINCE : NO_SINCE_YET;
            holders.add(new LockView.Holder(field.getKey(), clientId, threadIdOf(owner), OwnerKind.ofField(owner),
                    role, holds, sinceMillis, sinceNote, holderTtl, leaseOf(holderTtl, sinceMillis, now, client),
                    client));
        }
        holders.sort((a, b) -> Long.compare(a.sinceMillis() == null ? Long.MAX_VALUE : a.sinceMillis(),
                b.sinceMillis() == null ? Long.MAX_VALUE : b.sinceMillis()));
        return holders;
    }

    private static void addOnce(List<String> channels, String channel) {
        if (!channels.contains(channel)) {
            channels.add(channel);
        }
    }

    /** A reader's lease: the longest PTTL of its holds' lease keys ({@code {name}:<field>:rwlock_timeout:<n>}). */
    private long readerLease(String name, String readerField, long holds) {
        long longest = -2;
        String prefix = LockKeys.readLeasePrefix(name, readerField) + ':';
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
        String value = redis.await(redis.commands().get(LockKeys.readLeasePrefix(name, readerField) + ":1"),
                "GET read lease");
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

    /** {@code <ownerId>} of an owner field (a thread's, or a lease's: negative), -1 when it has none. */
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
