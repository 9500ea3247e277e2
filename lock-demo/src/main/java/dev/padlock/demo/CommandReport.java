package dev.padlock.demo;

import dev.padlock.testing.CommandStats;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Redis commands per acquisition, from the {@code INFO commandstats} delta over the run: the
 * demo's own GET/SET calls (counted exactly by the workers) are taken out, as is the parent's
 * {@code INFO}; what is left is the lock engine's.
 */
final class CommandReport {

    private final CommandStats engine;
    private final long bookkeepingGets;
    private final long bookkeepingSets;
    private final long acquisitions;

    private CommandReport(CommandStats engine, long gets, long sets, long acquisitions) {
        this.engine = engine;
        this.bookkeepingGets = gets;
        this.bookkeepingSets = sets;
        this.acquisitions = acquisitions;
    }

    /**
     * Splits the run's commands.
     *
     * @throws IllegalArgumentException when the delta has fewer GET/SET calls than the workers
     *     sent (the server's stats were reset during the run)
     */
    static CommandReport of(CommandStats before, CommandStats after, long gets, long sets, long acquisitions) {
        CommandStats engine = CommandStats.delta(before, after)
                .without("info")
                .minus("get", gets)
                .minus("set", sets);
        return new CommandReport(engine, gets, sets, acquisitions);
    }

    String engineLine() {
        String breakdown = engine.asMap().entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()))
                .limit(8)
                .map(entry -> entry.getKey() + " " + perAcquisition(entry.getValue()))
                .collect(Collectors.joining(", "));
        return perAcquisition(engine.total()) + "  (" + breakdown + ")";
    }

    String bookkeepingLine() {
        return perAcquisition(bookkeepingGets + bookkeepingSets) + "  (get " + perAcquisition(bookkeepingGets)
                + ", set " + perAcquisition(bookkeepingSets) + "; counted by the workers and subtracted)";
    }

    private String perAcquisition(long calls) {
        return acquisitions == 0 ? "n/a" : String.format("%.2f", (double) calls / acquisitions);
    }
}
