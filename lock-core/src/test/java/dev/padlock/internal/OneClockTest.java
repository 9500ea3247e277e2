package dev.padlock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * One clock per client (issue 39): lock-core reads time only through its client's
 * {@link dev.padlock.internal.base.EngineClock}, so that a test or a simulation that drives that
 * clock drives all of the engine. {@code EngineClock.SYSTEM} is the only reader of the system's
 * clocks, and it is used only where a client (or a tool's connection) is assembled. Reads the
 * sources, comments and string literals left out, as {@link EngineLayersTest} does for imports.
 */
class OneClockTest {
    private static final Path ROOT = Path.of("src/main/java/dev/padlock");

    /** The one file that reads the system's clocks. */
    private static final String ENGINE_CLOCK = "internal/base/EngineClock.java";

    /** Where a client is assembled, and so given the system's clock. */
    private static final Set<String> ASSEMBLY = Set.of(
            "LockClient.java",                // LockClient.create: the deferred client
            "internal/PadlockClient.java",    // PadlockClient.open: the connected client
            "spi/RedisAccess.java");          // RedisAccess.open: a tool's own connection

    private static final Pattern SYSTEM_TIME = Pattern.compile(
            "\\bSystem\\s*\\.\\s*(?:nanoTime|currentTimeMillis)\\b"
                    + "|\\b(?:Instant|LocalDateTime|LocalDate|LocalTime|ZonedDateTime|OffsetDateTime|Year|YearMonth)"
                    + "\\s*\\.\\s*now\\b"
                    + "|\\bClock\\s*\\.\\s*(?:system|systemUTC|systemDefaultZone|tickMillis|tickSeconds)\\b"
                    + "|\\bnew\\s+(?:java\\.util\\.)?Date\\s*\\(\\s*\\)");

    private static final Pattern SYSTEM_CLOCK = Pattern.compile("\\bEngineClock\\s*\\.\\s*SYSTEM\\b|\\bimport\\s+static\\s+"
            + "dev\\.padlock\\.internal\\.base\\.EngineClock\\.(?:SYSTEM|\\*)");

    @Test
    void onlyEngineClockReadsTheSystemsClocks() throws IOException {
        assertThat(SYSTEM_TIME.matcher(code(Files.readString(ROOT.resolve(ENGINE_CLOCK)))).find())
                .as("the scan reads the sources: EngineClock's own reads are seen").isTrue();
        assertThat(findings(SYSTEM_TIME, Set.of(ENGINE_CLOCK))).isEmpty();
    }

    @Test
    void theSystemsEngineClockIsUsedOnlyWhereAClientIsAssembled() throws IOException {
        Set<String> allowed = new java.util.HashSet<>(ASSEMBLY);
        allowed.add(ENGINE_CLOCK);
        assertThat(findings(SYSTEM_CLOCK, allowed)).isEmpty();
    }

    @Test
    void theScanSeesCodeNotCommentsOrStrings() {
        String source = "// System.nanoTime()\n/* Instant.now() */ String s = \"EngineClock.SYSTEM\";\n"
                + "long t = System.nanoTime(); Object c = java.time.Clock.systemUTC(); x = EngineClock.SYSTEM;";
        String code = code(source);
        assertThat(SYSTEM_TIME.matcher(code).results().count()).isEqualTo(2);
        assertThat(SYSTEM_CLOCK.matcher(code).results().count()).isOne();
        assertThat(lineOf(source, source.indexOf("long t"))).isEqualTo(3);
    }

    private static List<String> findings(Pattern pattern, Set<String> allowed) throws IOException {
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".java")).sorted()::iterator) {
                String relative = ROOT.relativize(file).toString().replace('\\', '/');
                if (allowed.contains(relative)) {
                    continue;
                }
                String source = Files.readString(file);
                Matcher m = pattern.matcher(code(source));
                while (m.find()) {
                    found.add(relative + ":" + lineOf(source, m.start()) + ": " + m.group());
                }
            }
        }
        return found;
    }

    /** {@code source} with comments and string and character literals blanked (lines and offsets kept). */
    static String code(String source) {
        StringBuilder out = new StringBuilder(source);
        int i = 0;
        int n = source.length();
        while (i < n) {
            char c = source.charAt(i);
            if (c == '/' && i + 1 < n && source.charAt(i + 1) == '/') {
                while (i < n && source.charAt(i) != '\n') {
                    out.setCharAt(i++, ' ');
                }
            } else if (c == '/' && i + 1 < n && source.charAt(i + 1) == '*') {
                int end = source.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
                blank(out, i, end);
                i = end;
            } else if (source.startsWith("\"\"\"", i)) {
                int end = source.indexOf("\"\"\"", i + 3);
                end = end < 0 ? n : end + 3;
                blank(out, i, end);
                i = end;
            } else if (c == '"' || c == '\'') {
                int j = i + 1;
                while (j < n && source.charAt(j) != c && source.charAt(j) != '\n') {
                    j += source.charAt(j) == '\\' ? 2 : 1;
                }
                int end = Math.min(n, j + 1);
                blank(out, i, end);
                i = end;
            } else {
                i++;
            }
        }
        return out.toString();
    }

    private static void blank(StringBuilder out, int from, int to) {
        for (int k = from; k < to; k++) {
            if (out.charAt(k) != '\n') {
                out.setCharAt(k, ' ');
            }
        }
    }

    private static int lineOf(String source, int offset) {
        int line = 1;
        for (int k = 0; k < offset; k++) {
            if (source.charAt(k) == '\n') {
                line++;
            }
        }
        return line;
    }
}
