package dev.padlock.cli;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Map;

/** The human-readable forms of times, durations, counts and clients in the command's output. */
final class Text {
    private static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS 'UTC'").withZone(ZoneOffset.UTC);

    private Text() {
    }

    /** One client's registry entry on one line, or why it has none. */
    static String client(Map<String, String> client) {
        if (client == null) {
            return Registry.NOT_REGISTERED;
        }
        return client.getOrDefault("application", "?") + " on " + client.getOrDefault("host", "?")
                + ", pid " + client.getOrDefault("pid", "?") + " (Padlock " + client.getOrDefault("version", "?")
                + ", started " + startedAt(client) + ")";
    }

    /** {@code 1 writer}, {@code 2 writers}. */
    static String count(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    private static String startedAt(Map<String, String> client) {
        try {
            return time(Long.parseLong(client.get("started")));
        } catch (RuntimeException e) {
            return "?";
        }
    }

    static String time(long epochMillis) {
        return TIME.format(Instant.ofEpochMilli(epochMillis));
    }

    /** A PTTL: {@code 27.9 s}, {@code no expiry} (-1), {@code none} (-2). */
    static String ttl(long millis) {
        if (millis == -1) {
            return "no expiry";
        }
        if (millis < 0) {
            return "none";
        }
        return duration(millis);
    }

    static String duration(long millis) {
        if (millis < 0) {
            return "-" + duration(-millis);
        }
        if (millis < 1_000) {
            return millis + " ms";
        }
        if (millis < 120_000) {
            return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
        }
        if (millis < 7_200_000) {
            return String.format(Locale.ROOT, "%d min %d s", millis / 60_000, millis / 1000 % 60);
        }
        return String.format(Locale.ROOT, "%d h %d min", millis / 3_600_000, millis / 60_000 % 60);
    }
}
