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
 * (first library / second, whatever the metric). Rows of a scenario that the floor ran as well
 * ({@link Scenario#withFloor()}: the uncontended ones) also fill two more columns, the floor's
 * figure ({@value FloorLibrary#NAME}) and the first library's over it ({@code Padlock/floor});
 * those columns are empty in other rows, and left out when no row has a floor. Renders as
 * aligned text and as Markdown. On a cluster the scenario column's header names the topology,
 * and contended scenarios get two more rows: the classic and sharded PUBLISH and SUBSCRIBE calls
 * per acquisition, summed over the masters, and the multi lock's rows
 * ({@link Scenario#roundTripsPerMaster}) one more: the round trips per acquisition per master. A
 * library that could not be measured shows {@value #FAILED} in its cells.
 */
final class ResultTable {

    /**
     * One row; {@code ratio} is empty where a ratio means nothing, {@code floor} and
     * {@code floorRatio} where the scenario ran without the floor.
     */
    record Row(String scenario, String metric, String first, String second, String ratio, String floor,
            String floorRatio) {

        /** A row without the floor. */
        Row(String scenario, String metric, String first, String second, String ratio) {
            this(scenario, metric, first, second, ratio, "", "");
        }
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
     * One scenario's results: the two libraries', and the floor's, null when it did not run.
     * {@code measured} is one that did not fail, when there is one.
     */
    private record Results(ScenarioResult a, ScenarioResult b, ScenarioResult floor) {

        ScenarioResult measured() {
            if (!a.failed() || !b.failed() || floor == null) {
                return a.failed() ? b : a;
            }
            return floor;
        }
    }

    /**
     * Adds the rows of one scenario, {@code results} keyed by library name, the floor's by
     * {@value FloorLibrary#NAME} if it ran; a library whose result
     * {@link ScenarioResult#failed() failed} shows {@value #FAILED} in each of them.
     */
    void add(Scenario scenario, Map<String, ScenarioResult> results) {
        String label = scenario.id() + "  " + scenario.title();
        Results r = new Results(results.get(libraries.get(0)), results.get(libraries.get(1)),
                results.get(FloorLibrary.NAME));
        ScenarioResult measured = r.measured();
        if (measured.failed()) {
            rows.add(new Row(label, "measured", FAILED, FAILED, "", r.floor() == null ? "" : FAILED, ""));
            return;
        }
        if (scenario.compact()) {
            number(label, "acquisitions/s", r, ScenarioResult::acquisitionsPerSecond, "%,.0f");
            number(label, "Redis calls / acquisition", r, result -> result.cost().callsPerAcquisition(), "%.2f");
            number(label, "round trips / acquisition", r, ScenarioResult::roundTripsPerAcquisition, "%.2f");
            if (topology == Topology.CLUSTER && scenario.roundTripsPerMaster()) {
                number(label, "round trips / acquisition / master", r,
                        result -> result.roundTripsPerAcquisition() / Topology.CLUSTER_MASTERS, "%.2f");
            }
            failedAttempts(label, r, measured);
            if (measured.freePermitsAfter() != null) {
                text(label, "free permits on Redis after the run", r,
                        result -> Integer.toString(result.freePermitsAfter()));
            }
            perProcess(label, r, measured);
            if (measured.perThread().length > 1) {
                text(label, "fewest / most per thread (ratio)", r, result -> spread(result.perThread()));
            }
            return;
        }
        if (scenario.measuresThroughput()) {
            number(label, "acquisitions/s", r, ScenarioResult::acquisitionsPerSecond, "%,.0f");
        } else {
            micros(label, "wake-up p50", r, latency -> latency.p50Micros());
            micros(label, "wake-up p99", r, latency -> latency.p99Micros());
        }
        number(label, "Redis calls / acquisition", r, result -> result.cost().callsPerAcquisition(), "%.2f");
        number(label, "round trips / acquisition", r, ScenarioResult::roundTripsPerAcquisition, "%.2f");
        failedAttempts(label, r, measured);
        number(label, "(UN)SUBSCRIBE / acquisition", r, result -> result.cost().subscriptionsPerAcquisition(),
                "%.3f");
        number(label, "Redis CPU ms / 1000 acq.", r, result -> result.cost().cpuMillisPer1000(), "%.1f");
        if (topology == Topology.CLUSTER && scenario.contended()) {
            text(label, "PUBLISH / SPUBLISH per acquisition", r, result -> pair(result, "publish", "spublish"));
            text(label, "SUBSCRIBE / SSUBSCRIBE per acquisition", r,
                    result -> pair(result, "subscribe", "ssubscribe"));
        }
        perProcess(label, r, measured);
        if (scenario.measuresThroughput() && measured.perThread().length > 1) {
            text(label, "fewest / most per thread (ratio)", r, result -> spread(result.perThread()));
        }
        text(label, "keys left besides the locks", r, result -> Long.toString(result.keysLeft()));
    }

    /** Adds the JMH row: bytes allocated per uncontended pair. */
    void addAllocation(Map<String, Double> bytesPerPair) {
        Double a = bytesPerPair.get(libraries.get(0));
        Double b = bytesPerPair.get(libraries.get(1));
        Double floor = bytesPerPair.get(FloorLibrary.NAME);
        Function<Double, String> text = value -> value == null ? "n/a" : String.format(Locale.ROOT, "%,.0f", value);
        rows.add(new Row("JMH  uncontended lock(30 s) + unlock", "bytes allocated / pair", text.apply(a),
                text.apply(b), ratio(a, b), floor == null ? "" : text.apply(floor), floor == null ? "" : ratio(a, floor)));
    }

    /**
     * Adds {@code scenario}'s share of the hand-off ceiling ({@link HandOffCeiling}): each
     * library's acquisitions/s over {@code ceiling}, the most one confirmed round trip per hand-off
     * allows.
     */
    void addCeiling(Scenario scenario, Map<String, ScenarioResult> results, double ceiling) {
        ScenarioResult a = results.get(libraries.get(0));
        ScenarioResult b = results.get(libraries.get(1));
        number(scenario.id() + "  " + scenario.title(),
                String.format(Locale.ROOT, "share of the hand-off ceiling (%,.0f/s)", ceiling),
                a.failed() || a.acquisitionsPerSecond() == null ? null : a.acquisitionsPerSecond() / ceiling,
                b.failed() || b.acquisitionsPerSecond() == null ? null : b.acquisitionsPerSecond() / ceiling, "%.2f");
    }

    /** Adds the held-locks row: client heap per watchdog-held lock ({@link HeldLocksHeap}). */
    void addHeldLocksHeap(Map<String, Double> bytesPerLock) {
        number(String.format(Locale.ROOT, "heap  %,d watchdog-held locks", HeldLocksHeap.LOCKS),
                "client heap bytes / held lock", bytesPerLock.get(libraries.get(0)),
                bytesPerLock.get(libraries.get(1)), "%,.0f");
    }

    List<Row> rows() {
        return List.copyOf(rows);
    }

    String toText() {
        boolean floor = hasFloor();
        List<String[]> cells = new ArrayList<>();
        cells.add(header(floor));
        String previous = null;
        for (Row row : rows) {
            String[] line = cells(row, floor);
            line[0] = row.scenario().equals(previous) ? "" : row.scenario();
            previous = row.scenario();
            cells.add(line);
        }
        int columns = cells.get(0).length;
        int[] widths = new int[columns];
        for (String[] line : cells) {
            for (int i = 0; i < columns; i++) {
                widths[i] = Math.max(widths[i], line[i].length());
            }
        }
        StringBuilder text = new StringBuilder();
        for (String[] line : cells) {
            StringBuilder formatted = new StringBuilder();
            for (int i = 0; i < columns; i++) {
                // the scenario and the metric aligned left, the figures right
                String align = i < 2 ? "-" : "";
                formatted.append(i == 0 ? "" : "  ").append(String.format("%" + align + widths[i] + "s", line[i]));
            }
            text.append(formatted.toString().stripTrailing()).append('\n');
        }
        return text.toString();
    }

    String toMarkdown() {
        boolean floor = hasFloor();
        String[] header = header(floor);
        StringBuilder text = new StringBuilder();
        text.append("| ").append(String.join(" | ", header)).append(" |\n");
        text.append("| --- | --- |").append(" ---: |".repeat(header.length - 2)).append('\n');
        for (Row row : rows) {
            text.append("| ").append(String.join(" | ", cells(row, floor))).append(" |\n");
        }
        return text.toString();
    }

    /** Whether any row has a floor cell, so that the table shows the floor's two columns. */
    private boolean hasFloor() {
        return rows.stream().anyMatch(row -> !row.floor().isEmpty());
    }

    /** The columns' headers, with the floor's two when {@code floor}. */
    private String[] header(boolean floor) {
        List<String> header = new ArrayList<>(List.of(scenarioHeader(), "metric", libraries.get(0), libraries.get(1),
                ratioHeader()));
        if (floor) {
            header.add(FloorLibrary.NAME);
            header.add(libraries.get(0) + "/" + FloorLibrary.NAME);
        }
        return header.toArray(String[]::new);
    }

    /** The cells of {@code row}, with the floor's two when {@code floor}. */
    private String[] cells(Row row, boolean floor) {
        List<String> cells = new ArrayList<>(List.of(row.scenario(), row.metric(), row.first(), row.second(),
                row.ratio()));
        if (floor) {
            cells.add(row.floor());
            cells.add(row.floorRatio());
        }
        return cells.toArray(String[]::new);
    }

    /**
     * Acquisitions/s of every charted scenario that none of {@code libraries} failed, for the
     * chart: label to value per library (the floor is not charted).
     */
    static Map<String, double[]> throughputs(Map<Scenario, Map<String, ScenarioResult>> results, List<String> libraries) {
        Map<String, double[]> values = new LinkedHashMap<>();
        results.forEach((scenario, byLibrary) -> {
            if (scenario.charted() && libraries.stream().map(byLibrary::get).noneMatch(ScenarioResult::failed)) {
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

    /**
     * A row of {@code value} in {@code format}, with the ratio when both libraries were measured,
     * and the floor's figure and the first library's ratio to it when the floor ran.
     */
    private void number(String label, String metric, Results r, Function<ScenarioResult, Double> value,
            String format) {
        Function<ScenarioResult, Double> measured = result -> result.failed() ? null : value.apply(result);
        Function<ScenarioResult, String> cell = result -> {
            if (result.failed()) {
                return FAILED;
            }
            Double number = value.apply(result);
            return number == null ? "n/a" : String.format(Locale.ROOT, format, number);
        };
        Double first = measured.apply(r.a());
        rows.add(new Row(label, metric, cell.apply(r.a()), cell.apply(r.b()), ratio(first, measured.apply(r.b())),
                r.floor() == null ? "" : cell.apply(r.floor()),
                r.floor() == null ? "" : ratio(first, measured.apply(r.floor()))));
    }

    /** A row of latencies, with the ratios as {@link #number} has them. */
    private void micros(String label, String metric, Results r, ToLongFunction<ScenarioResult.Latency> micros) {
        Function<ScenarioResult, Double> measured = result -> result.failed() ? null
                : (double) micros.applyAsLong(result.latency());
        Function<ScenarioResult, String> cell = result -> result.failed() ? FAILED
                : formatMicros(micros.applyAsLong(result.latency()));
        Double first = measured.apply(r.a());
        rows.add(new Row(label, metric, cell.apply(r.a()), cell.apply(r.b()), ratio(first, measured.apply(r.b())),
                r.floor() == null ? "" : cell.apply(r.floor()),
                r.floor() == null ? "" : ratio(first, measured.apply(r.floor()))));
    }

    /** A row of text, without a ratio. */
    private void text(String label, String metric, Results r, Function<ScenarioResult, String> text) {
        Function<ScenarioResult, String> cell = result -> result.failed() ? FAILED : text.apply(result);
        rows.add(new Row(label, metric, cell.apply(r.a()), cell.apply(r.b()), "",
                r.floor() == null ? "" : cell.apply(r.floor()), ""));
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
    private void failedAttempts(String label, Results r, ScenarioResult measured) {
        if (measured.failedAttemptsPerAcquisition() != null) {
            number(label, "failed attempts / acquisition", r, ScenarioResult::failedAttemptsPerAcquisition, "%.2f");
        }
    }

    /** The fewest and most acquisitions of one JVM, with more than one worker JVM. */
    private void perProcess(String label, Results r, ScenarioResult measured) {
        if (measured.perProcess() != null && measured.perProcess().length > 1) {
            text(label, "fewest / most per process (ratio)", r, result -> spread(result.perProcess()));
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
