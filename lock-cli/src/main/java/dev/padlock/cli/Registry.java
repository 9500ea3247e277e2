package dev.padlock.cli;

import dev.padlock.spi.LockKeys;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Padlock's client registry as the command reads it: the entry {@code padlock_client:<clientId>}
 * of each client (read once per command), its JSON form with numbers as numbers, and what to say
 * of a client that has none.
 */
final class Registry {
    /** Why a holder or waiter has no entry: Redis cannot tell which of these it is. */
    static final String NOT_REGISTERED =
            "not in Padlock's registry (a Redisson client, or a Padlock client that has stopped or runs with the registry off)";

    /** The entry's fields that are numbers (ClientRegistration writes them as decimal strings). */
    private static final Set<String> NUMBERS = Set.of("pid", "started", "watchdogMillis");
    /** The entry's fields that are text even when they look like numbers (a "java" of "25"). */
    private static final Set<String> TEXTS = Set.of("id", "application", "host", "version", "java");
    private static final Pattern INTEGER = Pattern.compile("-?(0|[1-9][0-9]{0,17})");

    private final Connection redis;
    private final Map<String, Map<String, String>> entries = new HashMap<>();

    Registry(Connection redis) {
        this.redis = redis;
    }

    /** The registry entry of {@code clientId}, null when it has none (read once per registry). */
    Map<String, String> entry(String clientId) {
        return entries.computeIfAbsent(clientId, id -> {
            Map<String, String> entry = redis.await(redis.commands().hgetall(LockKeys.client(id)), "HGETALL client");
            return entry.isEmpty() ? null : new TreeMap<>(entry); // sorted: stable output
        });
    }

    /**
     * An entry as JSON values: the numeric fields as numbers; a field this version does not know
     * as a number or a boolean when it is written as one; the rest, and any value that does not
     * parse, as the string Redis holds. Null for null.
     */
    static Map<String, Object> json(Map<String, String> entry) {
        if (entry == null) {
            return null;
        }
        Map<String, Object> typed = new LinkedHashMap<>();
        entry.forEach((field, value) -> typed.put(field, TEXTS.contains(field) ? value
                : NUMBERS.contains(field) ? number(value) : guess(value)));
        return typed;
    }

    private static Object number(String value) {
        return value != null && INTEGER.matcher(value).matches() ? (Object) Long.valueOf(value) : value;
    }

    private static Object guess(String value) {
        if ("true".equals(value) || "false".equals(value)) {
            return Boolean.valueOf(value);
        }
        return number(value);
    }
}
