package dev.padlock.testing;

import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Calls per command, parsed from {@code INFO commandstats}, and the difference between two such
 * snapshots. Immutable.
 *
 * <p>Names are lower case as Redis reports them; subcommands keep Redis 7's form
 * ({@code client|setinfo}). Redis also counts the commands a Lua script runs with
 * {@code redis.call}, so one {@code EVALSHA} that sets a hash field and a TTL shows up as
 * {@code evalsha}, {@code hincrby} and {@code pexpire}. The {@code INFO} that takes a snapshot
 * is counted in the next one.
 */
public final class CommandStats {

    private static final Pattern LINE = Pattern.compile("^cmdstat_([^:]+):.*?\\bcalls=(\\d+)", Pattern.MULTILINE);

    private final Map<String, Long> calls;

    private CommandStats(Map<String, Long> calls) {
        this.calls = Collections.unmodifiableMap(calls);
    }

    /** Parses the text of {@code INFO commandstats} (or of a whole {@code INFO}). */
    public static CommandStats parse(String info) {
        Objects.requireNonNull(info, "info");
        Map<String, Long> calls = new TreeMap<>();
        Matcher matcher = LINE.matcher(info);
        while (matcher.find()) {
            calls.merge(matcher.group(1).toLowerCase(Locale.ROOT), Long.parseLong(matcher.group(2)), Long::sum);
        }
        return new CommandStats(calls);
    }

    /** {@code after - before}, command by command; commands with no new calls are left out. */
    public static CommandStats delta(CommandStats before, CommandStats after) {
        Objects.requireNonNull(before, "before");
        Objects.requireNonNull(after, "after");
        Map<String, Long> difference = new TreeMap<>();
        after.calls.forEach((command, count) -> {
            long added = count - before.calls(command);
            if (added != 0) {
                difference.put(command, added);
            }
        });
        return new CommandStats(difference);
    }

    /** The calls of {@code command} (lower case, e.g. {@code evalsha}); 0 when absent. */
    public long calls(String command) {
        return calls.getOrDefault(command.toLowerCase(Locale.ROOT), 0L);
    }

    /** The sum of all calls. */
    public long total() {
        return calls.values().stream().mapToLong(Long::longValue).sum();
    }

    /** These stats without the given commands (e.g. the {@code info} that took them). */
    public CommandStats without(String... commands) {
        Map<String, Long> kept = new TreeMap<>(calls);
        for (String command : commands) {
            kept.remove(command.toLowerCase(Locale.ROOT));
        }
        return new CommandStats(kept);
    }

    /**
     * These stats with {@code count} calls of {@code command} taken away (e.g. a client's own
     * bookkeeping it counted exactly); a command reaching zero is dropped.
     *
     * @throws IllegalArgumentException when that would go below zero
     */
    public CommandStats minus(String command, long count) {
        String name = command.toLowerCase(Locale.ROOT);
        long left = calls(name) - count;
        if (left < 0) {
            throw new IllegalArgumentException("Cannot take " + count + " calls of " + name
                    + " from " + calls(name));
        }
        Map<String, Long> kept = new TreeMap<>(calls);
        if (left == 0) {
            kept.remove(name);
        } else {
            kept.put(name, left);
        }
        return new CommandStats(kept);
    }

    /** The command names present. */
    public Set<String> commands() {
        return calls.keySet();
    }

    /** Command to calls, sorted by name. */
    public Map<String, Long> asMap() {
        return calls;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof CommandStats && ((CommandStats) other).calls.equals(calls);
    }

    @Override
    public int hashCode() {
        return calls.hashCode();
    }

    @Override
    public String toString() {
        return calls.toString();
    }
}
