package dev.padlock.internal.script;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.spi.LockKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.luaj.vm2.Globals;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.lib.jse.JsePlatform;

/**
 * The key and channel names the Lua scripts build themselves are the names {@link LockKeys} builds
 * in Java. The scripts' own lines that build a name are taken from the files, run in a Lua
 * interpreter (LuaJ) with sample lock names and owners, and compared with {@link LockKeys}: a change
 * to either side's pattern fails here.
 *
 * <p>Two shapes are found: a prefix built from the lock name ({@code local tag = ...} and
 * {@code local grants = 'padlock_grant:' .. tag .. ':'}, KEYS[1] being the lock's hash, whose key is
 * the lock name), and a name built on a key argument ({@code KEYS[k] .. ':' .. x}), whose KEYS[k] is
 * what the script's header says it is. Every name a script builds in either shape must be one this
 * test knows, so a new one cannot go unchecked.
 */
class ScriptKeyNamesTest {
    private static final List<String> NAMES = List.of("orders:42", "{orders}:42", "a{b", "a}b", "with space", "zürich");
    private static final List<String> FIELDS = List.of(
            "3f2b8c1e-5a6d-4e7f-9a0b-1c2d3e4f5a6b:17", "client-a:-1:write", "c:9223372036854775807");
    private static final List<String> HOLDS = List.of("1", "12");

    /** A prefix local built from the lock name, and what LockKeys builds for it. */
    private static final Map<String, Function<String, String>> NAME_PREFIXES = Map.of(
            "grants", LockKeys::grantChannelPrefix,
            "places", LockKeys::waiterPlacePrefix);

    private static final Pattern TAG = Pattern.compile("^\\s*(local tag = .*)$", Pattern.MULTILINE);
    private static final Pattern NAME_PREFIX = Pattern.compile("^\\s*(local (\\w+) = '(padlock|redisson)_\\w+:' \\.\\. tag .*)$",
            Pattern.MULTILINE);
    private static final Pattern LITERAL_PREFIX = Pattern.compile("'(padlock|redisson)_");
    private static final Pattern ON_KEY = Pattern.compile(
            "KEYS\\[(\\d+)] \\.\\. ':' \\.\\. (\\w+(?:\\[\\w+])?|\\([^)]*\\))( \\.\\. ':rwlock_timeout:' \\.\\. (\\w+))?");
    private static final Pattern HEADER_KEY = Pattern.compile("^--\\s+KEYS\\[(\\d+)]\\s+(.*)$", Pattern.MULTILINE);

    /**
     * A name built on a key argument ({@code KEYS[k] .. ':' .. x}, or for a reader's lease key
     * {@code KEYS[k] .. ':' .. x .. ':rwlock_timeout:' .. n}), known by what the script's header
     * says KEYS[k] is: the key Java passes there, and the name LockKeys gives the result.
     *
     * @param header the words of the header's line for KEYS[k]
     * @param readerLease whether the name has the reader's lease key form
     * @param xIsHold whether x is a hold number (else an owner field)
     * @param passed the key Java passes as KEYS[k], for a lock name and an owner field
     * @param expected the name LockKeys gives, for a lock name, an owner field and a hold number
     */
    private record OnKey(String header, boolean readerLease, boolean xIsHold, BiFunction<String, String, String> passed,
            Expected expected) {
    }

    private interface Expected {
        String name(String lockName, String field, String hold);
    }

    private static final List<OnKey> ON_KEYS = List.of(
            new OnKey("the readers' lease base, {<name>}", true, false,
                    (name, field) -> LockKeys.readLeaseBase(name),
                    (name, field, hold) -> LockKeys.readLeasePrefix(name, field) + ':' + hold),
            new OnKey("lease prefix, {<name>}:<clientId>:<threadId>:rwlock_timeout", false, true,
                    LockKeys::readLeasePrefix,
                    (name, field, hold) -> LockKeys.readLeasePrefix(name, field) + ':' + hold),
            new OnKey("the unlock channel, redisson_rwlock:{<name>}", false, false,
                    (name, field) -> LockKeys.readWriteChannel(name),
                    (name, field, hold) -> LockKeys.readWriteWriterChannel(name, field)),
            // a Redisson fair waiter's channel (LockKeys.redissonFairQueue's Javadoc), which Java never builds
            new OnKey("the unlock channel, redisson_lock__channel:{<name>}", false, false,
                    (name, field) -> LockKeys.unlockChannel(name),
                    (name, field, hold) -> LockKeys.unlockChannel(name) + ':' + field));

    @Test
    void namePrefixesTheScriptsBuildAreLockKeys() {
        Map<String, Integer> sites = new TreeMap<>();
        for (LuaScript script : LuaScript.values()) {
            String body = script.body();
            Matcher prefix = NAME_PREFIX.matcher(body);
            while (prefix.find()) {
                String local = prefix.group(2);
                String where = script.file() + ": " + prefix.group(1);
                assertThat(NAME_PREFIXES).as("a name prefix LockKeys builds too, for %s", where).containsKey(local);
                String tag = lastBefore(TAG, body, prefix.start());
                assertThat(tag).as("the tag line before %s", where).isNotNull();
                String chunk = tag + "\n" + prefix.group(1) + "\nreturn " + local + " .. ARGV[1]";
                for (String name : NAMES) {
                    for (String field : FIELDS) {
                        String client = field.substring(0, field.indexOf(':'));
                        assertThat(run(chunk, where, List.of(name), List.of(client)))
                                .as("%s, lock %s, client %s", where, name, client)
                                .isEqualTo(NAME_PREFIXES.get(local).apply(name) + client);
                    }
                }
                sites.merge(local, 1, Integer::sum);
            }
        }
        for (LuaScript script : LuaScript.values()) {
            for (String line : script.body().split("\n")) {
                String code = line.trim().startsWith("--") ? "" : line.replaceFirst(" -- .*$", "");
                if (LITERAL_PREFIX.matcher(code).find()) {
                    assertThat(NAME_PREFIX.matcher(code).find())
                            .as("%s builds a name from a literal prefix in a shape this test does not read: %s",
                                    script.file(), line.trim())
                            .isTrue();
                }
            }
        }
        // the grant channel: fair_acquire, fair_release, lock_release, rw_read_release, rw_write_release (twice)
        assertThat(sites).as("name prefixes found").containsEntry("grants", 6).containsEntry("places", 1);
    }

    @Test
    void namesBuiltOnAKeyArgumentAreLockKeys() {
        Map<String, Integer> sites = new TreeMap<>();
        for (LuaScript script : LuaScript.values()) {
            String body = script.body();
            Map<String, String> headers = new TreeMap<>();
            Matcher header = HEADER_KEY.matcher(body);
            while (header.find()) {
                headers.put(header.group(1), header.group(2));
            }
            Matcher site = ON_KEY.matcher(body);
            while (site.find()) {
                String where = script.file() + ": " + site.group();
                String described = headers.get(site.group(1));
                assertThat(described).as("the header's KEYS[%s], for %s", site.group(1), where).isNotNull();
                OnKey onKey = ON_KEYS.stream().filter(k -> described.contains(k.header())).findFirst()
                        .orElseThrow(() -> new AssertionError("a name built on KEYS[" + site.group(1) + "] ("
                                + described + ") that this test does not know: " + where
                                + "; add what LockKeys builds for it to ON_KEYS"));
                assertThat(site.group(3) != null)
                        .as("%s: a reader's lease key has the form KEYS[k] .. ':' .. f .. ':rwlock_timeout:' .. n", where)
                        .isEqualTo(onKey.readerLease());
                // the script's own text, its variable parts read from ARGV[1] (and the hold from ARGV[2])
                StringBuilder expression = new StringBuilder(site.group());
                if (site.group(4) != null) {
                    expression.replace(site.start(4) - site.start(), site.end(4) - site.start(), "ARGV[2]");
                }
                expression.replace(site.start(2) - site.start(), site.end(2) - site.start(), "ARGV[1]");
                List<String> keys = new ArrayList<>();
                for (int k = 1; k < Integer.parseInt(site.group(1)); k++) {
                    keys.add("another key");
                }
                keys.add(null);
                for (String name : NAMES) {
                    for (String field : FIELDS) {
                        for (String hold : HOLDS) {
                            keys.set(keys.size() - 1, onKey.passed().apply(name, field));
                            List<String> argv = List.of(onKey.xIsHold() ? hold : field, hold);
                            assertThat(run("return " + expression, where, keys, argv))
                                    .as("%s, lock %s, field %s, hold %s", where, name, field, hold)
                                    .isEqualTo(onKey.expected().name(name, field, hold));
                        }
                    }
                }
                sites.merge(onKey.header(), 1, Integer::sum);
            }
        }
        // rw_write_acquire, rw_write_release; rw_read_acquire (3), rw_read_leave (2), rw_read_release (3);
        // rw_force_release, rw_write_leave; fair_force_release, fair_release
        assertThat(sites).as("names built on a key argument, by what the argument is").isEqualTo(Map.of(
                ON_KEYS.get(0).header(), 2, ON_KEYS.get(1).header(), 8, ON_KEYS.get(2).header(), 2,
                ON_KEYS.get(3).header(), 2));
    }

    @Test
    void aChangedPatternOnEitherSideIsSeen() {
        String tag = "local tag = string.find(KEYS[1], '{', 1, true) and KEYS[1] or ('{' .. KEYS[1] .. '}')";
        String grants = "local grants = 'padlock_grant:' .. tag .. ':'";
        assertThat(run(tag + "\n" + grants + "\nreturn grants .. ARGV[1]", "sample", List.of("a{b"), List.of("c")))
                .isEqualTo(LockKeys.grantChannelPrefix("a{b") + "c");
        assertThat(run(tag + "\n" + grants.replace("grant:", "grants:") + "\nreturn grants .. ARGV[1]", "sample",
                List.of("orders"), List.of("c")))
                .isNotEqualTo(LockKeys.grantChannelPrefix("orders") + "c");
        assertThat(run(tag.replace("'{', 1, true", "'}', 1, true") + "\n" + grants + "\nreturn grants .. ARGV[1]",
                "sample", List.of("a{b"), List.of("c")))
                .isNotEqualTo(LockKeys.grantChannelPrefix("a{b") + "c");
    }

    private static String lastBefore(Pattern pattern, String body, int end) {
        Matcher matcher = pattern.matcher(body);
        String last = null;
        while (matcher.find() && matcher.start() < end) {
            last = matcher.group(1);
        }
        return last;
    }

    /** Runs {@code chunk} with KEYS and ARGV set, as Redis would, and returns its string result. */
    private static String run(String chunk, String where, List<String> keys, List<String> argv) {
        Globals globals = JsePlatform.standardGlobals();
        globals.set("KEYS", table(keys));
        globals.set("ARGV", table(argv));
        LuaValue result = globals.load(chunk, where).call();
        assertThat(result.isstring()).as("%s returns a string, not %s", where, result).isTrue();
        return result.tojstring();
    }

    private static LuaTable table(List<String> values) {
        LuaTable table = new LuaTable();
        for (int i = 0; i < values.size(); i++) {
            table.set(i + 1, LuaValue.valueOf(values.get(i)));
        }
        return table;
    }
}
