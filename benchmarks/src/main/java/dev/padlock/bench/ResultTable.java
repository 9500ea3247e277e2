package dev.padlock.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * The one table of a run: a row per scenario and metric, a column per library and their ratio
 * (first library / second, whatever the metric). Renders as aligned text and as Markdown. On a
 * cluster the scenario column's header names the topology, and contended scenarios get two more
 * rows: the classic and sharded PUBLISH and SUBSCRIBE calls per acquisition, summed over the
 * masters. A library that could not be measured shows {@value #FAILED} in its cells.
 */
final class ResultTable {

    /** One row; {@code ratio} is empty where a ratio means nothing. */
    record Row(String scenario, String metric, String first, String second, String ratio) {
    }

    /** What a cell of a library that could not be measured shows. */
    static final String FAILED = "failed";

    private final List<String> libraries;
    private final Topology topology;
    private final List<Row> rows = new ArrayList<>();

    /** A table of a run on one server. */
    ResultTable(List<String> libraries) {
        this(libraries, Topology.SINGLE);
    }

    ResultTable(List<String> libraries, Topology topology) {
        if (libraries.size() != 2) {
            throw new IllegalArgumentException("The table compares two libraries, got " + libraries);
        }
        this.libraries = List.copyOf(libraries);
        this.topology = topology;
    }

    /**
     * Adds the rows of one scenario, {@code results} keyed by library name; a library whose
     * result {@link ScenarioResult#failed() failed} shows {@value #FAILED} in each of them.
     */
    void add(Scenario scenario, Map<String, ScenarioResult> results) {
        String label = scenario.id() + "  " + scenario.title();
        ScenarioResult a = results.get(libraries.get(0));
        ScenarioResult b = results.get(libraries.get(1));
        ScenarioResult measured = a.failed() ? b : a;
        if (measured.failed()) {
            rows.add(new Row(label, "measured", FAILED, FAILED, ""));
            return;
        }
        if (scenario.compact()) {
            number(label, "acquisitions/s", a, b, ScenarioResult::acquisitionsPerSecond, "%,.0f");
            number(label, "Redis calls / acquisition", a, b, r -> r.cost().callsPerAcquisition(), "%.2f");
            number(label, "round trips / acquisition", a, b, ScenarioResult::roundTripsPerAcquisition, "%.2f");
            failedAttempts(label, a, b, measured);
            perProcess(label, a, b, measured);
            if (measured.perThread().length > 1) {
                text(label, "fewest / most per thread (ratio)", a, b, r -> spread(r.perThread()));
            }
            return;
        }
        if (scenario.measuresThroughput()) {
            number(label, "acquisitions/s", a, b, ScenarioResult::acquisitionsPerSecond, "%,.0f");
        } else {
            micros(label, "wake-up p50", a, b, latency -> latency.p50Micros());
            micros(label, "wake-up p99", a, b, latency -> latency.p99Micros());
        }
        number(label, "Redis calls / acquisition", a, b, r -> r.cost().callsPerAcquisition(), "%.2f");
        number(label, "round trips / acquisition", a, b, ScenarioResult::roundTripsPerAcquisition, "%.2f");
        failedAttempts(label, a, b, measured);
        number(label, "(UN)SUBSCRIBE / acquisition", a, b, r -> r.cost().subscriptionsPerAcquisition(), "%.3f");
        number(label, "Redis CPU ms / 1000 acq.", a, b, r -> r.cost().cpuMillisPer1000(), "%.1f");
        if (topology == Topology.CLUSTER && scenario.contended()) {
            text(label, "PUBLISH / SPUBLISH per acquisition", a, b, r -> pair(r, "publish", "spublish"));
            text(label, "SUBSCRIBE / SSUBSCRIBE per acquisition", a, b, r -> pair(r, "subscribe", "ssubscribe"));
        }
        perProcess(label, a, b, measured);
        if (scenario.measuresThroughput() && measured.perThread().length > 1) {
            text(label, "fewest / most per thread (ratio)", a, b, r -> spread(r.perThread()));
        }
        text(label, "keys left besides the locks", a, b, r -> Long.toString(r.keysLeft()));
    }

    /** Adds the JMH row: bytes allocated per uncontended pair. */
    void addAllocation(Map<String, Double> bytesPerPair) {
        number("JMH  uncontended lock(30 s) + unlock", "bytes allocated / pair",
                bytesPerPair.get(libraries.get(0)), bytesPerPair.get(libraries.get(1)), "%,.0f");
    }

    List<Row> rows() {
        return List.copyOf(rows);
    }

    String toText() {
        List<String[]> cells = new ArrayList<>();
        cells.add(new String[] {scenarioHeader(), "metric", libraries.get(0), libraries.get(1), ratioHeader()});
        String previous = null;
        for (Row row : rows) {
            String scenario = row.scenario().equals(previous) ? "" : row.scenario();
            previous = row.scenario();
            cells.add(new String[] {scenario, row.metric(), row.first(), row.second(), row.ratio()});
        }
        int[] widths = new int[5];
        for (String[] line : cells) {
            for (int i = 0; i < 5; i++) {
                widths[i] = Math.max(widths[i], line[i].length());
            }
        }
        StringBuilder text = new StringBuilder();
        for (String[] line : cells) {
            text.append(String.format("%-" + widths[0] + "s  %-" + widths[1] + "s  %" + widths[2] + "s  %"
                    + widths[3] + "s  %" + widths[4] + "s", (Object[]) line).stripTrailing()).append('\n');
        }
        return text.toString();
    }

    String toMarkdown() {
        StringBuilder text = new StringBuilder();
        text.append("| ").append(scenarioHeader()).append(" | metric | ").append(libraries.get(0)).append(" | ")
                .append(libraries.get(1)).append(" | ").append(ratioHeader()).append(" |\n");
        text.append("| --- | --- | ---: | ---: | ---: |\n");
        for (Row row : rows) {
            text.append("| ").append(row.scenario()).append(" | ").append(row.metric()).append(" | ")
                    .append(row.first()).append(" | ").append(row.second()).append(" | ").append(row.ratio())
                    .append(" |\n");
        }
        return text.toString();
    }

    /**
     * Acquisitions/s of every charted scenario that no library failed, for the chart: label to
     * value per library.
     */
    static Map<String, double[]> throughputs(Map<Scenario, Map<String, ScenarioResult>> results, List<String> libraries) {
        Map<String, double[]> values = new LinkedHashMap<>();
        results.forEach((scenario, byLibrary) -> {
            if (scenario.charted() && byLibrary.values().stream().noneMatch(ScenarioResult::failed)) {
                values.put(scenario.id(), libraries.stream()
                        .map(byLibrary::get)
                        .map(ScenarioResult::acquisitionsPerSecond)
                        .mapToDouble(Double::doubleValue)
                        .toArray());
            }
        });
        return values;
    }

    /** {@code scenario}, and on a cluster the topology after it. */
    private String scenarioHeader() {
        return topology == Topology.SINGLE ? "scenario" : "scenario (" + topology.description() + ")";
    }

    private String ratioHeader() {
        return libraries.get(0) + "/" + libraries.get(1);
    }

    private void number(String label, String metric, Double a, Double b, String format) {
        Function<Double, String> text = value -> value == null ? "n/a" : String.format(Locale.ROOT, format, value);
        rows.add(new Row(label, metric, text.apply(a), text.apply(b), ratio(a, b)));
    }

    /** A row of {@code value} in {@code format}, with the ratio when both were measured. */
    private void number(String label, String metric, ScenarioResult a, ScenarioResult b,
            Function<ScenarioResult, Double> value, String format) {
        Double first = a.failed() ? null : value.apply(a);
        Double second = b.failed() ? null : value.apply(b);
        Function<Double, String> text = number -> number == null ? "n/a" : String.format(Locale.ROOT, format, number);
        rows.add(new Row(label, metric, a.failed() ? FAILED : text.apply(first), b.failed() ? FAILED : text.apply(second),
                ratio(first, second)));
    }

    /** A row of latencies, with the ratio when both were measured. */
    private void micros(String label, String metric, ScenarioResult a, ScenarioResult b,
            ToLongFunction<ScenarioResult.Latency> micros) {
        Double first = a.failed() ? null : (double) micros.applyAsLong(a.latency());
        Double second = b.failed() ? null : (double) micros.applyAsLong(b.latency());
        rows.add(new Row(label, metric, a.failed() ? FAILED : formatMicros(first.longValue()),
                b.failed() ? FAILED : formatMicros(second.longValue()), ratio(first, second)));
    }

    /** A row of text, without a ratio. */
    private void text(String label, String metric, ScenarioResult a, ScenarioResult b,
            Function<ScenarioResult, String> text) {
        rows.add(new Row(label, metric, a.failed() ? FAILED : text.apply(a), b.failed() ? FAILED : text.apply(b), ""));
    }

    private static String ratio(Double a, Double b) {
        if (a == null || b == null || b == 0) {
            return a != null && b != null && a == 0 ? "=" : "n/a";
        }
        return String.format(Locale.ROOT, "%.2fx", a / b);
    }

    /** Two commands' calls per acquisition, e.g. {@code 0.000 / 1.002}. */
    private static String pair(ScenarioResult result, String first, String second) {
        return String.format(Locale.ROOT, "%.3f / %.3f", result.cost().perAcquisition(first),
                result.cost().perAcquisition(second));
    }

    /** The failed attempts per acquisition, when counted ({@code measured} is a result that did not fail). */
    private void failedAttempts(String label, ScenarioResult a, ScenarioResult b, ScenarioResult measured) {
        if (measured.failedAttemptsPerAcquisition() != null) {
            number(label, "failed attempts / acquisition", a, b, ScenarioResult::failedAttemptsPerAcquisition, "%.2f");
        }
    }

    /** The fewest and most acquisitions of one JVM, with more than one worker JVM. */
    private void perProcess(String label, ScenarioResult a, ScenarioResult b, ScenarioResult measured) {
        if (measured.perProcess() != null && measured.perProcess().length > 1) {
            text(label, "fewest / most per process (ratio)", a, b, r -> spread(r.perProcess()));
        }
    }

    /** The fewest and most of {@code counts} and their ratio, e.g. {@code 436 / 446 (0.98)}. */
    private static String spread(long[] counts) {
        long fewest = ScenarioResult.fewest(counts);
        long most = ScenarioResult.most(counts);
        return String.format(Locale.ROOT, "%,d / %,d (%.2f)", fewest, most, most == 0 ? 0.0 : (double) fewest / most);
    }

    /** Microseconds written for people: {@code 840 us}, {@code 1.92 ms}. */
    static String formatMicros(long micros) {
        if (micros < 1_000) {
            return micros + " us";
        }
        return String.format(Locale.ROOT, "%.2f ms", micros / 1_000.0);
    }
}
