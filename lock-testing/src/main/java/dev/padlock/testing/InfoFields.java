package dev.padlock.testing;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/** Parses {@code INFO} and {@code CLUSTER INFO} replies ({@code field:value} lines). */
final class InfoFields {

    private InfoFields() {
    }

    /** Field to value, in reply order; section headers ({@code # Replication}) left out. */
    static Map<String, String> parse(String info) {
        Objects.requireNonNull(info, "info");
        Map<String, String> fields = new LinkedHashMap<>();
        for (String line : info.split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        }
        return fields;
    }
}
