package dev.padlock.internal.script;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class LuaScriptTest {

    private static final Pattern INDEXED = Pattern.compile("\\b(KEYS|ARGV)\\[(\\d+)]");
    /** The line Dragonfly reads a script's flags from, a comment to Redis, valid only as the first. */
    private static final String DRAGONFLY_FLAGS = "--!df flags=";

    /** The resource's bytes, read through the class loader rather than {@code LuaScript.class}. */
    private static byte[] resourceBytes(LuaScript script) throws IOException {
        String path = "dev/padlock/lua/" + script.file() + ".lua";
        try (InputStream in = Thread.currentThread().getContextClassLoader().getResourceAsStream(path)) {
            assertThat(in).as("resource %s on the test class path", path).isNotNull();
            return in.readAllBytes();
        }
    }

    private static String sha1Hex(byte[] bytes) throws NoSuchAlgorithmException {
        byte[] digest = MessageDigest.getInstance("SHA-1").digest(bytes);
        return String.format("%040x", new BigInteger(1, digest));
    }

    /** The leading block of {@code --} comment lines. */
    private static List<String> header(String body) {
        List<String> lines = new ArrayList<>();
        for (String line : body.split("\n", -1)) {
            if (!line.startsWith("--")) {
                break;
            }
            lines.add(line);
        }
        return lines;
    }

    @ParameterizedTest
    @EnumSource(LuaScript.class)
    void bodyIsTheResourceFileVerbatim(LuaScript script) throws IOException {
        byte[] bytes = resourceBytes(script);

        assertThat(script.body()).isNotBlank();
        assertThat(script.body().getBytes(java.nio.charset.StandardCharsets.UTF_8)).isEqualTo(bytes);
    }

    @ParameterizedTest
    @EnumSource(LuaScript.class)
    void sha1IsTheSha1OfTheFileBytes(LuaScript script) throws Exception {
        String expected = sha1Hex(resourceBytes(script));

        assertThat(script.sha1()).isEqualTo(expected).matches("[0-9a-f]{40}");
    }

    @Test
    void sha1OfAKnownTextMatchesTheHelperUsedHere() throws Exception {
        // guards the independent SHA-1 above: SHA1("abc") from FIPS 180-1
        assertThat(sha1Hex("abc".getBytes(java.nio.charset.StandardCharsets.US_ASCII)))
                .isEqualTo("a9993e364706816aba3e25717850c26c9cd0d89d");
    }

    @Test
    void everyScriptHasItsOwnFileAndSha1() {
        Set<String> files = new TreeSet<>();
        Set<String> shas = new TreeSet<>();
        for (LuaScript script : LuaScript.values()) {
            files.add(script.file());
            shas.add(script.sha1());
        }
        assertThat(files).hasSize(LuaScript.values().length);
        assertThat(shas).hasSize(LuaScript.values().length);
    }

    @ParameterizedTest
    @EnumSource(LuaScript.class)
    void fileIsNamedAfterTheConstant(LuaScript script) {
        assertThat(script.file()).isEqualTo(script.name().toLowerCase(java.util.Locale.ROOT));
    }

    @ParameterizedTest
    @EnumSource(LuaScript.class)
    void startsWithAHeaderNamingItselfKeysArgvAndReturns(LuaScript script) {
        List<String> header = header(script.body());
        String text = String.join("\n", header);

        assertThat(header).as("header comment of %s", script.file()).hasSizeGreaterThanOrEqualTo(3);
        // a Dragonfly flags line (a Lua comment: see docs/operating/where-it-runs.md) may come first
        int first = header.get(0).startsWith(DRAGONFLY_FLAGS) ? 1 : 0;
        assertThat(header.get(first)).startsWith("-- " + script.file());
        assertThat(text).contains("KEYS[").contains("Returns").containsPattern("ARGV\\[|ARGV +none");
    }

    @ParameterizedTest
    @EnumSource(LuaScript.class)
    void everyNumberedKeyAndArgumentUsedIsDocumentedInTheHeader(LuaScript script) {
        String body = script.body();
        String header = String.join("\n", header(body));
        String code = body.substring(header.length());

        Set<String> used = indexed(code);
        Set<String> documented = indexed(header);

        assertThat(used).as("KEYS/ARGV used by %s", script.file()).isNotEmpty();
        assertThat(documented).as("KEYS/ARGV documented in the header of %s", script.file())
                .containsAll(used);
    }

    @ParameterizedTest
    @EnumSource(LuaScript.class)
    void returnsSomething(LuaScript script) {
        String code = script.body().substring(String.join("\n", header(script.body())).length());

        assertThat(code).containsPattern("(?m)^\\s*return\\b");
    }

    private static Set<String> indexed(String text) {
        Matcher m = INDEXED.matcher(text);
        Set<String> found = new TreeSet<>();
        while (m.find()) {
            found.add(m.group(1) + "[" + m.group(2) + "]");
        }
        return found;
    }

    @Test
    void theScriptsAreTheOnesOfTheLockLuaJar() throws java.io.IOException {
        java.nio.file.Path dir = java.nio.file.Path.of("..", "lock-lua", "src", "main", "resources", "dev", "padlock", "lua");
        List<String> files;
        try (java.util.stream.Stream<java.nio.file.Path> listing = java.nio.file.Files.list(dir)) {
            files = listing.map(path -> path.getFileName().toString())
                    .filter(name -> name.endsWith(".lua"))
                    .map(name -> name.substring(0, name.length() - ".lua".length()))
                    .collect(Collectors.toList());
        }
        assertThat(java.util.Arrays.stream(LuaScript.values()).map(LuaScript::file).collect(Collectors.toList()))
                .containsExactlyInAnyOrderElementsOf(files);
    }
}
