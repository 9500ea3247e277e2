package dev.padlock.tests.topology;

import dev.padlock.testing.RedisAdmin;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.ObjectOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Padlock's Redis Functions library as an outside test suite sees it: {@code FUNCTION LIST
 * LIBRARYNAME padlock WITHCODE}, the version blocks in its code (between the
 * {@code -- padlock <kind> <version> begin} and {@code end} lines the contract's library carries),
 * and a block made another version's, for tests of two Padlock versions on one server.
 */
final class PadlockLibrary {
    private static final Pattern BEGIN = Pattern.compile("^-- padlock (\\w+) (\\w+) begin$", Pattern.MULTILINE);

    private PadlockLibrary() {
    }

    /** {@return the names of the libraries named {@code padlock}: the one, or none} */
    static List<String> names(RedisAdmin admin) {
        return admin.commands().functionList("padlock").stream()
                .map(library -> (String) library.get("library_name")).toList();
    }

    /** {@return the code of the library {@code padlock}; null when the server has none} */
    static String code(RedisAdmin admin) {
        Object reply = admin.commands().dispatch(CommandType.FUNCTION, new ObjectOutput<>(StringCodec.UTF8),
                new CommandArgs<>(StringCodec.UTF8).add("LIST").add("LIBRARYNAME").add("padlock").add("WITHCODE"));
        for (Object library : (List<?>) reply) {
            Object code = field(library, "library_code");
            if ("padlock".equals(field(library, "library_name")) && code instanceof String text) {
                return text;
            }
        }
        return null;
    }

    private static Object field(Object library, String name) {
        if (library instanceof Map<?, ?> map) {
            return map.get(name);
        }
        List<?> pairs = (List<?>) library;
        for (int i = 0; i + 1 < pairs.size(); i += 2) {
            if (name.equals(pairs.get(i))) {
                return pairs.get(i + 1);
            }
        }
        return null;
    }

    /** {@return the versions of the blocks of {@code kind} ({@code version}, {@code extension}) in {@code code}, oldest first} */
    static List<String> versions(String code, String kind) {
        List<String> versions = new ArrayList<>();
        Matcher begin = BEGIN.matcher(code == null ? "" : code);
        while (begin.find()) {
            if (begin.group(1).equals(kind)) {
                versions.add(begin.group(2));
            }
        }
        return versions;
    }

    /** {@return the text of the Padlock version block {@code version} in {@code code}, its markers included} */
    static String block(String code, String version) {
        String begin = "-- padlock version " + version + " begin\n";
        String end = "-- padlock version " + version + " end\n";
        int from = code.indexOf(begin);
        int to = code.indexOf(end, from);
        if (from < 0 || to < 0) {
            throw new AssertionError("no block of version " + version + " in the library");
        }
        return code.substring(from, to + end.length());
    }

    /**
     * A library {@code padlock} of one version block: {@code code}'s block of {@code version},
     * every name and answer in it made {@code other}'s. The same scripts under other function
     * names: what another Padlock version would load.
     */
    static String asVersion(String code, String version, String other) {
        return "#!lua name=padlock\n" + block(code, version).replace(version, other);
    }
}
