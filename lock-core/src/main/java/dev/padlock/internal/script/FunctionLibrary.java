package dev.padlock.internal.script;

import dev.padlock.spi.Script;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Scripts as one Redis Functions library, generated from their text: each file's body, unchanged,
 * becomes the callback {@code function(KEYS, ARGV) <body> end} of a function, so that a script
 * reads its keys and arguments as under {@code EVAL}. The code is what {@code FUNCTION LOAD} takes.
 *
 * <h2>Naming and versions</h2>
 * The library is {@code <prefix>_<version>} and each function {@code <prefix>_<version>_<script>},
 * plus {@code <prefix>_<version>_version}, which takes no key, writes nothing and answers the
 * version: the probe that tells whether a server has this library. The version is the first 12
 * hex digits of the SHA1 of the scripts' names and bodies and of this generator's format, so one
 * name always means one code: two Padlock versions whose scripts differ share a server each with
 * its own library and never replace each other's ({@code FUNCTION LOAD} without {@code REPLACE};
 * "already exists" means another client loaded the same code first). Libraries of versions no
 * longer running stay until an administrator deletes them ({@code FUNCTION DELETE}).
 *
 * <p>Under functions the Lua differs from {@code EVAL} in ways the scripts already allow for:
 * {@code redis.replicate_commands} is absent (they call it only when present; functions replicate
 * their effects, so {@code TIME} before a write is fine); {@code KEYS} and {@code ARGV} are the
 * callback's parameters rather than globals; errors say {@code user_function} where EVAL says
 * {@code user_script}. No function carries flags but the probe ({@code no-writes}): each behaves
 * as a script without a shebang would, but that it is refused on a replica and when Redis is out
 * of memory before it runs rather than at its first write.
 */
final class FunctionLibrary {
    /** Changes with the generated text's shape, so that a new shape is a new version. */
    static final String FORMAT = "padlock-functions-1";
    /** Library and function names as Redis accepts them. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_]+");

    private final String name;
    private final String code;
    /** Script name to function name, in the scripts' order. */
    private final Map<String, String> functions;

    private FunctionLibrary(String name, String code, Map<String, String> functions) {
        this.name = name;
        this.code = code;
        this.functions = functions;
    }

    /**
     * The library of {@code scripts}, named {@code <prefix>_<version>}.
     *
     * @throws IllegalArgumentException when a script's name is not a valid function name part, two
     *     scripts share a name, or a body starts with a shebang (whose flags a function takes
     *     differently)
     */
    static FunctionLibrary of(String prefix, List<Script> scripts) {
        requireName(prefix, "prefix");
        StringBuilder hashed = new StringBuilder(FORMAT).append('\n');
        for (Script script : scripts) {
            requireName(script.name(), "script name");
            if (script.body().startsWith("#!")) {
                throw new IllegalArgumentException("script " + script.name() + " starts with a shebang, which a"
                        + " function library cannot carry: give its flags to the generator instead");
            }
            hashed.append(script.name()).append('\n').append(script.body()).append('\n');
        }
        String version = Script.sha1Hex(hashed.toString()).substring(0, 12);
        String name = prefix + "_" + version;
        Map<String, String> functions = new LinkedHashMap<>();
        StringBuilder code = new StringBuilder("#!lua name=").append(name).append('\n');
        code.append("-- Padlock's scripts as Redis Functions, generated (").append(FORMAT).append("); do not edit.\n");
        code.append("redis.register_function{function_name='").append(name).append("_version', callback=function()\n")
                .append("return '").append(version).append("'\nend, flags={'no-writes'}}\n");
        for (Script script : scripts) {
            String function = name + "_" + script.name();
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
        return new FunctionLibrary(name, code.toString(), Map.copyOf(functions));
    }

    private static void requireName(String name, String what) {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(what + " must be letters, digits and underscores, got '" + name + "'");
        }
    }

    /** {@return the library's name, {@code <prefix>_<version>}} */
    String name() {
        return name;
    }

    /** {@return the text {@code FUNCTION LOAD} takes} */
    String code() {
        return code;
    }

    /** {@return the function that answers the version: no keys, no writes} */
    String versionFunction() {
        return name + "_version";
    }

    /** {@return the version, the part of the name after the prefix} */
    String version() {
        return name.substring(name.lastIndexOf('_') + 1);
    }

    /**
     * The function that runs {@code script}.
     *
     * @throws IllegalArgumentException when the library has no such script
     */
    String function(String script) {
        String function = functions.get(script);
        if (function == null) {
            throw new IllegalArgumentException("library " + name + " has no script " + script);
        }
        return function;
    }

    /** {@link #function} as the bytes {@code FCALL} sends. */
    byte[] functionBytes(String script) {
        return function(script).getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public String toString() {
        return name;
    }
}
