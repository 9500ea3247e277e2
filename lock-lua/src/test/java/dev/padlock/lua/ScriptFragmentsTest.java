package dev.padlock.lua;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The fragments several scripts repeat agree in every copy: each script is sent on its own (one
 * file, its SHA1 computed from what is sent), so a helper such as {@code extend} is written out in
 * each, and nothing else keeps the copies the same. Change one, change every copy.
 *
 * <p>A fragment is found by its first line; it runs to the {@code end} that closes it at that line's
 * indentation (or is that one line). Copies are compared after dropping comments and blank lines
 * and folding whitespace, and with {@code KEYS[n]}/{@code ARGV[n]} read as the role the script's
 * header gives that argument when the role is one of {@link #ROLES} (the publish command is
 * {@code ARGV[3]} in one script and {@code ARGV[4]} in another: the code is the same). A script
 * that holds its own version of a fragment on purpose is named with the reason; every other copy
 * must match.
 */
class ScriptFragmentsTest {
    private static final String DIRECTORY = "/dev/padlock/lua/";

    /** Header phrases that name an argument's role, and the role's name in a compared copy. */
    private static final Map<Pattern, String> ROLES = Map.of(
            Pattern.compile("^the publish command\\b"), "publish command",
            Pattern.compile("^1 when PUBLISH's count says who heard a grant\\b"), "publish counts grants",
            Pattern.compile("\\bpadlock_since:"), "since",
            Pattern.compile("^lease in milliseconds to re-arm after an inner release\\b"), "re-arm lease",
            Pattern.compile("^(owner|writer) field\\b"), "owner field");

    private static final Pattern ARGUMENT = Pattern.compile("\\b(KEYS|ARGV)\\[(\\d+)]");
    private static final Pattern HEADER_ARGUMENT = Pattern.compile("^--\\s+((KEYS|ARGV)\\[\\d+])\\s+(.*)$");
    private static final Pattern LOCAL_FUNCTION = Pattern.compile("^\\s*local function (\\w+)\\(");

    static List<Fragment> fragments() {
        return List.of(
                new Fragment("extend", "local function extend(", 1, 10, false, Map.of(
                        "rw_read_renew.lua", "returns whether the hold's lease key still lives, which the renewal reports")),
                new Fragment("ttl_millis", "local function ttl_millis(", 1, 4, false, Map.of()),
                new Fragment("pcall_publish", "local function pcall_publish(", 1, 10, false, Map.of()),
                new Fragment("publish", "local function publish(", 1, 4, false, Map.of(
                        "fair_force_release.lua", "a force release notes only whether every message was allowed",
                        "rw_write_leave.lua", "a leave's wake-up ignores who heard it")),
                new Fragment("release one hold", "local remaining = redis.call('hincrby', KEYS[1], ", 2, 3, false,
                        Map.of("rw_read_release.lua", "a read hold's lease is its own key, not the hash's TTL")),
                new Fragment("grant the first live writer in line", "while head do", 1, 2, true, Map.of(
                        "rw_write_leave.lua", "a leave wakes the first live writer, it grants nothing")),
                new Fragment("wake the shared channel on a shorter grant", "if tonumber(lease) < before then", 1, 3, false,
                        Map.of("fair_release.lua", "also wakes the first of Redisson's fair waiters")),
                new Fragment("hash tag of the lock name", "local tag = ", 0, 6, false, Map.of()),
                new Fragment("grant channel prefix", "local grants = ", 0, 6, false, Map.of()),
                new Fragment("Redis TIME in milliseconds", "local now = ", 0, 6, false, Map.of(
                        "fenced_acquire.lua", "the token's time is in microseconds")),
                new Fragment("effects replication", "if redis.replicate_commands then", 1, 9, false, Map.of()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fragments")
    void everyCopyOfAFragmentIsTheSame(Fragment fragment) throws IOException {
        List<Copy> copies = new ArrayList<>();
        Set<String> variantsSeen = new TreeSet<>();
        for (Script script : scripts()) {
            for (Copy copy : fragment.copiesIn(script)) {
                if (fragment.variants().containsKey(script.file())) {
                    variantsSeen.add(script.file());
                } else {
                    copies.add(copy);
                }
            }
        }
        assertThat(copies)
                .as("copies of fragment '%s' (starting '%s'): one renamed or reshaped drops out of this check",
                        fragment.name(), fragment.start())
                .hasSizeGreaterThanOrEqualTo(fragment.minCopies());
        assertThat(variantsSeen)
                .as("scripts named as holding their own version of '%s'", fragment.name())
                .containsExactlyInAnyOrderElementsOf(fragment.variants().keySet());

        Copy reference = copies.get(0);
        List<String> drifts = new ArrayList<>();
        for (Copy copy : copies.subList(1, copies.size())) {
            String drift = reference.firstDifference(copy);
            if (drift != null) {
                drifts.add(drift);
            }
        }
        if (!drifts.isEmpty()) {
            fail("fragment '" + fragment.name() + "' has drifted; every copy must be the same (change every copy):\n"
                    + String.join("\n", drifts));
        }
    }

    @Test
    void everyHelperFunctionThatSeveralScriptsDefineIsChecked() throws IOException {
        Map<String, Set<String>> definedIn = new TreeMap<>();
        for (Script script : scripts()) {
            for (String line : script.lines()) {
                Matcher function = LOCAL_FUNCTION.matcher(line);
                if (function.find()) {
                    definedIn.computeIfAbsent(function.group(1), name -> new TreeSet<>()).add(script.file());
                }
            }
        }
        Set<String> checked = fragments().stream().map(Fragment::start)
                .map(LOCAL_FUNCTION::matcher).filter(Matcher::find).map(m -> m.group(1))
                .collect(Collectors.toSet());
        definedIn.forEach((name, files) -> {
            if (files.size() > 1) {
                assertThat(checked)
                        .as("local function %s is defined in %s: add it to fragments()", name, files)
                        .contains(name);
            }
        });
    }

    @Test
    void theCheckFindsADrift() {
        Script a = new Script("a.lua", List.of(
                "-- ARGV[1]  the publish command",
                "local function extend(key, ms)",
                "    redis.call('pexpire', key, ms) -- a comment",
                "    return ARGV[1]",
                "end"));
        Script b = new Script("b.lua", List.of(
                "-- ARGV[4]  the publish command: publish or spublish",
                "",
                "  local function extend(key,  ms)",
                "      redis.call('pexpire', key, ms)",
                "",
                "      return ARGV[4]",
                "  end"));
        Script c = new Script("c.lua", List.of(
                "local function extend(key, ms)",
                "    redis.call('pexpire', key, ms + 1)",
                "end"));
        Fragment extend = new Fragment("extend", "local function extend(", 1, 1, false, Map.of());

        Copy first = extend.copiesIn(a).get(0);
        assertThat(first.firstDifference(extend.copiesIn(b).get(0))).isNull();
        assertThat(first.firstDifference(extend.copiesIn(c).get(0)))
                .contains("a.lua:2 and c.lua:1 first differ at a.lua:3 / c.lua:2")
                .contains("redis.call('pexpire', key, ms + 1)");
    }

    /** One fragment: its first line, how many {@code end}s at that line's indentation close it. */
    record Fragment(String name, String start, int ends, int minCopies, boolean ownReturns, Map<String, String> variants) {
        List<Copy> copiesIn(Script script) {
            List<Copy> copies = new ArrayList<>();
            List<String> lines = script.lines();
            for (int i = 0; i < lines.size(); i++) {
                String code = stripComment(lines.get(i));
                if (!code.trim().startsWith(start)) {
                    continue;
                }
                String indent = code.substring(0, code.length() - code.stripLeading().length());
                List<Integer> numbers = new ArrayList<>();
                List<String> texts = new ArrayList<>();
                int closed = 0;
                int j = i;
                while (true) {
                    String line = stripComment(lines.get(j));
                    if (!line.isBlank()) {
                        numbers.add(j + 1);
                        texts.add(script.normalise(line, ownReturns));
                    }
                    if (j > i && line.stripTrailing().equals(indent + "end")) {
                        closed++;
                    }
                    if (closed >= ends) {
                        break;
                    }
                    j++;
                    if (j == lines.size()) {
                        throw new AssertionError(script.file() + ":" + (i + 1) + ": fragment '" + name
                                + "' is not closed by an end at its indentation");
                    }
                }
                copies.add(new Copy(script.file(), numbers, texts));
                i = j;
            }
            return copies;
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /** One copy of a fragment: its normalised lines and where each is in its file. */
    record Copy(String file, List<Integer> numbers, List<String> texts) {
        /** Where {@code other} first differs from this copy, or null when it does not. */
        String firstDifference(Copy other) {
            int n = Math.max(texts.size(), other.texts.size());
            for (int k = 0; k < n; k++) {
                String mine = k < texts.size() ? texts.get(k) : "<end of fragment>";
                String theirs = k < other.texts.size() ? other.texts.get(k) : "<end of fragment>";
                if (!mine.equals(theirs)) {
                    return "  " + file + ":" + numbers.get(0) + " and " + other.file + ":" + other.numbers.get(0)
                            + " first differ at " + where(this, k) + " / " + where(other, k) + ":\n"
                            + "    " + file + ": " + mine + "\n"
                            + "    " + other.file + ": " + theirs;
                }
            }
            return null;
        }

        @Override
        public String toString() {
            return file + ":" + numbers.get(0);
        }

        private static String where(Copy copy, int k) {
            return copy.file + ":" + (k < copy.numbers.size() ? copy.numbers.get(k) : "end");
        }
    }

    /** A script's lines and the roles its header gives its arguments. */
    record Script(String file, List<String> lines, Map<String, String> roles) {
        Script(String file, List<String> lines) {
            this(file, lines, roles(lines));
        }

        private static Map<String, String> roles(List<String> lines) {
            Map<String, String> roles = new HashMap<>();
            for (String line : lines) {
                if (!line.startsWith("--")) {
                    break;
                }
                Matcher argument = HEADER_ARGUMENT.matcher(line);
                if (argument.matches()) {
                    ROLES.forEach((phrase, role) -> {
                        if (phrase.matcher(argument.group(3)).find()) {
                            roles.put(argument.group(1), role);
                        }
                    });
                }
            }
            return roles;
        }

        String normalise(String code, boolean ownReturns) {
            String folded = code.trim().replaceAll("\\s+", " ");
            if (ownReturns && folded.startsWith("return ")) {
                return "return <this script's own reply>";
            }
            Matcher argument = ARGUMENT.matcher(folded);
            StringBuilder out = new StringBuilder();
            while (argument.find()) {
                String role = roles.get(argument.group());
                argument.appendReplacement(out, Matcher.quoteReplacement(
                        role == null ? argument.group() : argument.group(1) + "[<" + role + ">]"));
            }
            return argument.appendTail(out).toString();
        }
    }

    /** {@code line} without its {@code --} comment (one outside a string literal). */
    static String stripComment(String line) {
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                if (c == '\\') {
                    i++;
                } else if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '-' && i + 1 < line.length() && line.charAt(i + 1) == '-') {
                return line.substring(0, i).stripTrailing();
            }
        }
        return line;
    }

    static List<Script> scripts() throws IOException {
        URL anchor = ScriptFragmentsTest.class.getResource(DIRECTORY + "lock_acquire.lua");
        assertThat(anchor).as("lock-lua's scripts on the test class path").isNotNull();
        Path directory;
        try {
            directory = Path.of(anchor.toURI()).getParent();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        List<Script> scripts = new ArrayList<>();
        try (Stream<Path> files = Files.list(directory)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".lua")).sorted().toList()) {
                scripts.add(new Script(file.getFileName().toString(), Files.readAllLines(file, StandardCharsets.UTF_8)));
            }
        }
        assertThat(scripts).as("scripts in %s", directory).hasSizeGreaterThan(20);
        return scripts;
    }
}
