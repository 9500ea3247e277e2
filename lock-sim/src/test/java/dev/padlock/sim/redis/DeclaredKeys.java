package dev.padlock.sim.redis;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The rule strict servers hold scripts to: every key a script's {@code redis.call} or
 * {@code redis.pcall} names is one of its {@code KEYS} (Dragonfly by default refuses any other with
 * "script tried accessing undeclared key"; Aliyun's and Tencent's cluster proxies likewise). The
 * lock-lua scripts break it only where Redisson's format or the line of waiting clients leaves no
 * other way, and {@link #EXCEPTIONS} names each such script with the pattern of the keys it builds:
 * the same list as docs/operating/where-it-runs.md, and the scripts that open with Dragonfly's
 * {@code --!df flags=allow-undeclared-keys} line. Any other script gets no exception.
 *
 * <p>Which arguments of a command are keys: every argument of DEL and EXISTS, none of the commands
 * in {@link #KEYLESS} (channels are not keys), the first argument of every other command the model
 * knows.
 */
final class DeclaredKeys {

    /** The text of the refusal, as Dragonfly words it. */
    static final String REFUSAL = "script tried accessing undeclared key";

    /**
     * Leave for one script to touch keys of one shape that no caller can pass.
     *
     * @param script the lock-lua script's name
     * @param what the keys, for a reader
     * @param matches whether a key is one of them, given the call's KEYS and ARGV
     */
    record Exception(String script, String what, KeyTest matches) {
    }

    /** Whether {@code key} is one of an exception's keys, for a call with {@code keys} and {@code args}. */
    @FunctionalInterface
    interface KeyTest {
        boolean test(List<String> keys, List<String> args, String key);
    }

    static final List<Exception> EXCEPTIONS = List.of(
            new Exception("lock_release", "the places of other clients in the line, padlock_waiter:{<name>}:<clientId>,"
                    + " whose ids only the line holds", DeclaredKeys::anotherClientsPlace),
            new Exception("rw_read_acquire", "this reader's hold keys, KEYS[2]:<n>, n from the hash",
                    (keys, args, key) -> holdOf(keys.get(1), key)),
            new Exception("rw_read_leave", "this reader's hold key, KEYS[3]:<n>, n from the hash",
                    (keys, args, key) -> holdOf(keys.get(2), key)),
            new Exception("rw_read_release", "this reader's hold keys, KEYS[3]:<n>, n from the hash",
                    (keys, args, key) -> holdOf(keys.get(2), key)),
            new Exception("rw_read_renew", "each reader's hold keys, KEYS[3i-1]:<n>, n from the hash",
                    DeclaredKeys::renewedHold),
            new Exception("rw_write_acquire", "every reader's hold keys, KEYS[2]:<field>:rwlock_timeout:<n>,"
                    + " fields and counts from the hash", (keys, args, key) -> anyReadersHold(keys.get(1), key)),
            new Exception("rw_write_release", "the hold keys of readers granted from the hall,"
                    + " KEYS[8]:<field>:rwlock_timeout:<n>", (keys, args, key) -> anyReadersHold(keys.get(7), key)));

    private static final Map<String, List<Exception>> BY_SCRIPT = EXCEPTIONS.stream()
            .collect(Collectors.groupingBy(Exception::script));

    /** Commands whose arguments name no key. */
    static final Set<String> KEYLESS = Set.of("time", "ping", "echo", "publish", "spublish", "pubsub", "wait",
            "keys", "dbsize", "flushall", "eval", "evalsha", "script");
    private static final Set<String> ALL_KEYS = Set.of("del", "exists");
    private static final Pattern HOLD_NUMBER = Pattern.compile("\\d+");
    private static final Pattern READERS_HOLD = Pattern.compile(".+:rwlock_timeout:\\d+");

    private DeclaredKeys() {
    }

    /** The keys {@code argv} (a command with its name) names. */
    static List<String> keysOf(List<String> argv) {
        String name = argv.get(0).toLowerCase(java.util.Locale.ROOT);
        if (KEYLESS.contains(name) || argv.size() < 2) {
            return List.of();
        }
        return ALL_KEYS.contains(name) ? argv.subList(1, argv.size()) : argv.subList(1, 2);
    }

    /**
     * The first key of {@code argv} that script {@code script} may not touch, called with
     * {@code keys} and {@code args}; null when every key is declared or covered by an exception.
     */
    static String undeclared(String script, List<String> keys, List<String> args, List<String> argv) {
        for (String key : keysOf(argv)) {
            if (!keys.contains(key) && !excepted(script, keys, args, key)) {
                return key;
            }
        }
        return null;
    }

    private static boolean excepted(String script, List<String> keys, List<String> args, String key) {
        for (Exception exception : BY_SCRIPT.getOrDefault(script, List.of())) {
            if (exception.matches().test(keys, args, key)) {
                return true;
            }
        }
        return false;
    }

    /** {@code padlock_waiter:{<name>}:<clientId>} of a client other than the releasing one (ARGV[3]'s). */
    private static boolean anotherClientsPlace(List<String> keys, List<String> args, String key) {
        String name = keys.get(0);
        String places = "padlock_waiter:" + (name.indexOf('{') >= 0 ? name : '{' + name + '}') + ':';
        String owner = args.get(2);
        String me = owner.substring(0, Math.max(0, owner.lastIndexOf(':')));
        return key.startsWith(places) && key.length() > places.length() && !key.equals(places + me);
    }

    private static boolean holdOf(String prefix, String key) {
        return key.startsWith(prefix + ':') && HOLD_NUMBER.matcher(key.substring(prefix.length() + 1)).matches();
    }

    private static boolean anyReadersHold(String base, String key) {
        return key.startsWith(base + ':') && READERS_HOLD.matcher(key.substring(base.length() + 1)).matches();
    }

    /** A hold key of one of rw_read_renew's readers: KEYS[3i-1] is reader i's lease prefix. */
    private static boolean renewedHold(List<String> keys, List<String> args, String key) {
        for (int prefix = 1; prefix < keys.size(); prefix += 3) {
            if (holdOf(keys.get(prefix), key)) {
                return true;
            }
        }
        return false;
    }
}
