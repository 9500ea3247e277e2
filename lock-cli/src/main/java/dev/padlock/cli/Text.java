package dev.padlock.cli;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Map;

/** The human-readable forms of the command's output. */
final class Text {
    private static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS 'UTC'").withZone(ZoneOffset.UTC);

    private Text() {
    }

    /** {@code padlock show}: the lock, then one block per holder, the token, the queue, the listeners. */
    static String show(LockView view) {
        StringBuilder out = new StringBuilder();
        out.append(view.name()).append(": ");
        switch (view.kind()) {
            case "free" -> out.append("free (not held)");
            case "not a lock" -> out.append("not a lock (a key of another type)");
            default -> out.append(view.kind()).append(" lock")
                    .append(view.mode() != null ? ", " + view.mode() + " mode" : "")
                    .append(view.held() ? ", held, TTL " + ttl(view.ttlMillis()) : ", free");
        }
        out.append('\n');
        for (LockView.Holder h : view.holders()) {
            out.append("  ").append(h.role()).append(' ').append(h.field()).append('\n');
            out.append("    client   ").append(client(h.client())).append('\n');
            out.append("    thread   ").append(h.threadId()).append(", holds ").append(h.holds()).append('\n');
            out.append("    since    ").append(h.sinceMillis() == null ? "unknown (not written by a Padlock client)"
                    : time(h.sinceMillis()) + " (" + duration(view.nowMillis() - h.sinceMillis()) + " ago)").append('\n');
            out.append("    lease    ").append(h.lease()).append(", TTL ").append(ttl(h.ttlMillis())).append('\n');
        }
        if (view.token() != null) {
            out.append("  token    ").append(view.token()).append(view.held() ? " (the holder's)" : " (the last one handed out)")
                    .append('\n');
        }
        if (!view.queue().isEmpty() || "fair".equals(view.kind())) {
            out.append("  queue    ").append(view.queue().size()).append(view.queue().size() == 1 ? " waiter" : " waiters")
                    .append('\n');
            int position = 1;
            for (LockView.Waiter w : view.queue()) {
                out.append("    ").append(position++).append(". ").append(w.field()).append('\n');
                out.append("       client   ").append(client(w.client())).append('\n');
                out.append("       deadline ").append(w.deadlineMillis() == null ? "none"
                        : time(w.deadlineMillis()) + " (in " + duration(w.deadlineMillis() - view.nowMillis()) + ")")
                        .append('\n');
            }
        }
        out.append("  listeners ").append(view.listeners()).append(" subscription")
                .append(view.listeners() == 1 ? "" : "s").append(" on ").append(String.join(", ", view.channels()))
                .append('\n');
        return out.toString();
    }

    /** One client's registry entry on one line, or {@code unknown client}. */
    static String client(Map<String, String> client) {
        if (client == null) {
            return "unknown client (not in the registry: not Padlock, registry off, or gone)";
        }
        return client.getOrDefault("application", "?") + " on " + client.getOrDefault("host", "?")
                + ", pid " + client.getOrDefault("pid", "?") + " (Padlock " + client.getOrDefault("version", "?")
                + ", started " + startedAt(client) + ")";
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
