package dev.padlock.tests.model;

import dev.padlock.spi.LockKeys;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What {@link LockModel} reads on Redis to compare with what owners were told: hashes, TTLs, a
 * reader's lease keys, and keys left without expiry. Key names come from {@link LockKeys}, the one
 * place that knows them.
 */
final class RedisView {
    private final RedisCommands<String, String> redis;

    RedisView(RedisCommands<String, String> redis) {
        this.redis = redis;
    }

    Map<String, String> hash(String name) {
        return redis.hgetall(name);
    }

    String field(String name, String field) {
        return redis.hget(name, field);
    }

    boolean exists(String key) {
        return redis.exists(key) > 0;
    }

    /** {@code PTTL}: milliseconds left, -1 without expiry, -2 when there is no key. */
    long pttl(String key) {
        Long ttl = redis.pttl(key);
        return ttl == null ? -2 : ttl;
    }

    /** Reader {@code field}'s lease key of hold {@code n} ({@code {name}:field:rwlock_timeout:n}). */
    static String readLease(String name, String field, int n) {
        return LockKeys.readLeaseBase(name) + ":" + field + ":rwlock_timeout:" + n;
    }

    /** The prefix of fencing token counters ({@link LockKeys#fencingTokens}), up to the name. */
    private static final String FENCING_PREFIX = LockKeys.fencingTokens("").substring(0,
            LockKeys.fencingTokens("").indexOf(':') + 1);

    /** Whether {@code key} is a fencing token counter, the one kind of key that never expires. */
    static boolean fencingCounter(String key) {
        return key.startsWith(FENCING_PREFIX);
    }

    /** Every key (SCAN) whose PTTL is -1, fencing counters aside, with its type. */
    List<String> keysWithoutExpiry() {
        List<String> found = new ArrayList<>();
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
            KeyScanCursor<String> page = redis.scan(cursor, ScanArgs.Builder.limit(500));
            for (String key : page.getKeys()) {
                if (!fencingCounter(key) && pttl(key) == -1) {
                    found.add(key + " (" + redis.type(key) + ")");
                }
            }
            cursor = page;
        } while (!cursor.isFinished());
        return found;
    }

    /** Every key whose name contains {@code part} (SCAN MATCH), for clean-up. */
    List<String> keysContaining(String part) {
        List<String> found = new ArrayList<>();
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
            KeyScanCursor<String> page = redis.scan(cursor, ScanArgs.Builder.matches("*" + part + "*").limit(500));
            found.addAll(page.getKeys());
            cursor = page;
        } while (!cursor.isFinished());
        return found;
    }
}
