package dev.padlock.internal.script;

import dev.padlock.spi.Script;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * One block of the Redis Functions library {@code padlock} ({@link FunctionLibrary}): the
 * functions of one version of some scripts, generated from their text, between two marker lines.
 * Each file's body, unchanged, becomes the callback {@code function(KEYS, ARGV) <body> end} of a
 * function, so that a script reads its keys and arguments as under {@code EVAL}.
 *
 * <h2>Names and versions</h2>
 * A block of {@code kind} {@code version} holds lock-lua's scripts; one of kind {@code extension},
 * another module's script (lock-shedlock's). Its functions are {@code <prefix>_<version>_<script>},
 * plus {@code <prefix>_<version>_version}, which takes no key, writes nothing and answers the
 * version: the probe that tells whether a server has this block. The version is the first 12 hex
 * digits of the SHA1 of the scripts' names and bodies and of this generator's format, so one
 * function name always means one code. The block's text runs from
 * {@code -- padlock <kind> <version> begin} to {@code -- padlock <kind> <version> end}, each on a
 * line of its own, which is how {@link FunctionLibrary} finds the blocks of a library that other
 * Padlock versions wrote.
 *
 * <p>Under functions the Lua differs from {@code EVAL} in ways the scripts already allow for:
 * {@code redis.replicate_commands} is absent (they call it only when present; functions replicate
 * their effects, so {@code TIME} before a write is fine); {@code KEYS} and {@code ARGV} are the
 * callback's parameters rather than globals; errors say {@code user_function} where EVAL says
 * {@code user_script}. No function carries flags but the probe ({@code no-writes}): each behaves
 * as a script without a shebang would, but that it is refused on a replica and when Redis is out
 * of memory before it runs rather than at its first write.
 */
final class FunctionBlock {
    /** Changes with the generated text's shape, so that a new shape is a new version. */
    static final String FORMAT = "padlock-functions-2";
    /** The kind of lock-lua's blocks. */
    static final String VERSION = "version";
    /** The kind of another module's script's block. */
    static final String EXTENSION = "extension";
    /** Function names, and a kind, as Redis and the markers accept them. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_]+");

    private final String kind;
    private final String prefix;
    private final String version;
    private final String code;
    /** Script name to function name, in the scripts' order. */
    private final Map<String, String> functions;

    private FunctionBlock(String kind, String prefix, String version, String code, Map<String, String> functions) {
        this.kind = kind;
        this.prefix = prefix;
        this.version = version;
        this.code = code;
        this.functions = functions;
    }

    /**
     * The block of {@code scripts}, whose functions are named {@code <prefix>_<version>_<script>}.
     *
     * @throws IllegalArgumentException when the kind, the prefix or a script's name is not letters,
     *     digits and underscores, two scripts share a name, or a body starts with a shebang (whose
     *     flags a function takes differently)
     */
    static FunctionBlock of(String kind, String prefix, List<Script> scripts) {
        requireName(kind, "kind");
        requireName(prefix, "prefix");
        StringBuilder hashed = new StringBuilder(FORMAT).append('\n').append(prefix).append('\n');
        for (Script script : scripts) {
            requireName(script.name(), "script name");
            if (script.body().startsWith("#!")) {
                throw new IllegalArgumentException("script " + script.name() + " starts with a shebang, which a"
                        + " function library cannot carry: give its flags to the generator instead");
            }
            hashed.append(script.name()).append('\n').append(script.body()).append('\n');
        }
        String version = Script.sha1Hex(hashed.toString()).substring(0, 12);
        String named = prefix + "_" + version;
        Map<String, String> functions = new LinkedHashMap<>();
        StringBuilder code = new StringBuilder(marker(kind, version, "begin"));
        code.append("redis.register_function{function_name='").append(named).append("_version', callback=function()\n")
                .append("return '").append(version).append("'\nend, flags={'no-writes'}}\n");
        for (Script script : scripts) {
            String function = named + "_" + script.name();
            if (functions.put(script.name(), function) != null) {
                throw new IllegalArgumentException("two scripts are named " + script.name());
            }
            code.append("-- ").append(script.name()).append(".lua\n");
            code.append("redis.register_function{function_name='").append(function)
                    .append("', callback=function(KEYS, ARGV)\n")
                    .append(script.body());
            // the body's last line may be a comment: the end goes on a line of its own
            code.append(script.body().endsWith("\n") ? "" : "\n").append("end}\n");
        }
        code.append(marker(kind, version, "end"));
        return new FunctionBlock(kind, prefix, version, code.toString(), Map.copyOf(functions));
    }

    /** {@return the marker line, newline included, that opens ({@code begin}) or closes ({@code end}) a block} */
    static String marker(String kind, String version, String edge) {
        return "-- padlock " + kind + " " + version + " " + edge + "\n";
    }

    private static void requireName(String name, String what) {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(what + " must be letters, digits and underscores, got '" + name + "'");
        }
    }

    /** {@return {@link #VERSION} or {@link #EXTENSION}} */
    String kind() {
        return kind;
    }

    /** {@return the version: 12 hex digits of the scripts' hash} */
    String version() {
        return version;
    }

    /** {@return the block's text, from its begin marker to its end marker, each line ending in a newline} */
    String code() {
        return code;
    }

    /** {@return the function that answers the version: no keys, no writes} */
    String versionFunction() {
        return prefix + "_" + version + "_version";
    }

    /**
     * The function that runs {@code script}.
     *
     * @throws IllegalArgumentException when the block has no such script
     */
    String function(String script) {
        String function = functions.get(script);
        if (function == null) {
            throw new IllegalArgumentException("block " + this + " has no script " + script);
        }
        return function;
    }

    /** {@link #function} as the bytes {@code FCALL} sends. */
    byte[] functionBytes(String script) {
        return function(script).getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public String toString() {
        return kind + " " + version;
    }
}
