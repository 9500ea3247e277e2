package dev.padlock.bench;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The scenario runner: starts a Redis (or uses {@code --redis}), or with {@code --topology cluster}
 * a Redis Cluster, runs every selected {@link Scenario} for Padlock and Redisson in turn, and for
 * the floor too in the scenarios {@link Scenario#withFloor() with a floor} (the order reversed
 * every round), optionally the JMH allocation benchmark, then prints the table
 * and writes {@code bench.md} and the chart ({@link Topology#chartFileName()}). A round that
 * fails for a library (a client that times out, a worker JVM that dies) is reported and the run
 * goes on: that library's row is its median measured round, or shows it failed when no round was
 * measured. Exits 0 when everything ran, 1 on any failure (after the table, when rounds failed),
 * 2 on bad usage; what it started (clients, worker JVMs, the servers) is stopped either way.
 */
public final class Bench {

    private static final Duration CALIBRATION = Duration.ofSeconds(1);
    /** The scenario measured against {@link HandOffCeiling}: threads of one client taking turns. */
    static final String HAND_OFF_SCENARIO = "3b";

    private final BenchOptions options;
    private final PrintStream out;

    Bench(BenchOptions options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        if (Arrays.asList(args).contains("--help") || Arrays.asList(args).contains("-h")) {
            System.out.println(BenchOptions.USAGE);
            return;
        }
        BenchOptions options;
        try {
            options = BenchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.println(BenchOptions.USAGE);
            System.exit(2);
            return;
        }
        int status;
        try {
            int failed = new Bench(options, System.out).run();
            if (failed > 0) {
                System.err.println("bench: " + failed + (failed == 1 ? " round" : " rounds")
                        + " failed, see above and bench.md");
            }
            status = failed > 0 ? 1 : 0;
        } catch (Throwable e) {
            System.err.println("bench: failed: " + e);
            e.printStackTrace();
            status = 1;
        }
        System.exit(status);
    }

    /** All scenarios on one server, in the order they run. */
    static List<Scenario> scenarios() {
        return scenarios(Topology.SINGLE);
    }

    /** All scenarios on {@code topology}, in the order they run. */
    static List<Scenario> scenarios(Topology topology) {
        List<Scenario> scenarios = new ArrayList<>(List.of(
                new UncontendedScenario("1", UncontendedScenario.Pair.FIXED_LEASE),
                new UncontendedScenario("1b", UncontendedScenario.Pair.WATCHDOG),
                new UncontendedScenario("2", UncontendedScenario.Pair.TRY_LOCK),
                new OneLockScenario("3", 4),
                new OneLockScenario("3b", 16),
                MultiProcessScenario.twoProcesses(),
                new OwnLocksScenario(),
                new WakeUpLatencyScenario("6a", WakeUpLatencyScenario.Place.OTHER_CLIENT),
                new WakeUpLatencyScenario("6b", WakeUpLatencyScenario.Place.SAME_CLIENT),
                new WakeUpLatencyScenario("6c", WakeUpLatencyScenario.Place.OTHER_JVM)));
        scenarios.addAll(LockFamilyScenario.all(topology));
        scenarios.addAll(MultiProcessScenario.series());
        scenarios.add(SemaphoreScenario.fourProcesses());
        scenarios.addAll(MultiLockScenario.all(topology));
        return List.copyOf(scenarios);
    }

    /** Runs the selected scenarios and writes the table; returns how many rounds of a library failed. */
    int run() throws Exception {
        List<Scenario> selected = scenarios(options.topology()).stream().filter(options::selects)
                .collect(Collectors.toList());
        if (selected.isEmpty()) {
            throw new IllegalArgumentException("No scenario matches " + options.scenarioIds());
        }
        List<String> names = LockLibrary.all().stream().map(LockLibrary::name).collect(Collectors.toList());
        Duration warmUp = Duration.ofSeconds(options.seconds() < 5 ? 1 : 2);

        try (BenchServers servers = BenchServers.start(options.topology(), options.redisUri())) {
            String header = header(servers, warmUp);
            out.print(header);
            BenchContext context = new BenchContext(servers, Duration.ofSeconds(options.seconds()), warmUp,
                    CALIBRATION);
            Map<Scenario, Map<String, ScenarioResult>> results = new LinkedHashMap<>();
            List<String> failures = new ArrayList<>();
            int round = 0;
            for (Scenario scenario : selected) {
                out.printf("  %-3s %s ...%n", scenario.id(), scenario.title());
                List<LockLibrary> contenders = LockLibrary.contenders(scenario);
                Map<String, List<ScenarioResult>> rounds = new LinkedHashMap<>();
                for (int r = 0; r < options.rounds(); r++, round++) {
                    List<LockLibrary> order = new ArrayList<>(contenders);
                    if (round % 2 == 1) {
                        java.util.Collections.reverse(order);
                    }
                    Map<String, ScenarioResult> byLibrary = runRound(scenario, order, context);
                    for (LockLibrary library : order) {
                        ScenarioResult result = byLibrary.get(library.name());
                        out.printf("      round %d  %-9s %s%n", r + 1, library.name(), summary(result));
                        if (result.failed()) {
                            failures.add(String.format(Locale.ROOT, "%s %s, round %d: %s", scenario.id(),
                                    library.name(), r + 1, result.failure()));
                        }
                        rounds.computeIfAbsent(library.name(), n -> new ArrayList<>()).add(result);
                    }
                }
                Map<String, ScenarioResult> byLibrary = new LinkedHashMap<>();
                for (LockLibrary library : contenders) {
                    byLibrary.put(library.name(), median(rounds.get(library.name())));
                }
                results.put(scenario, byLibrary);
            }

            ResultTable table = new ResultTable(names, options.topology());
            results.forEach(table::add);
            Scenario turns = selected.stream().filter(s -> s.id().equals(HAND_OFF_SCENARIO)).findFirst().orElse(null);
            if (turns != null && options.topology() == Topology.SINGLE) {
                out.print("  the hand-off ceiling (lock_handoff, one round trip after another) ...");
                out.flush();
                double ceiling = HandOffCeiling.perSecond(servers.target(), warmUp, Duration.ofSeconds(options.seconds()));
                out.printf(Locale.ROOT, " %,.0f/s%n", ceiling);
                table.addCeiling(turns, results.get(turns), ceiling);
            }
            if (options.jmh()) {
                out.print("  JMH allocation per uncontended pair (GC profiler, 1 fork) ...");
                out.flush();
                Map<String, Double> bytes = JmhAllocation.bytesPerPair(servers.target());
                out.println(" " + bytes);
                table.addAllocation(bytes);
                out.printf("  client heap per held lock (%,d watchdog-held locks, in this JVM) ...", HeldLocksHeap.LOCKS);
                out.flush();
                Map<String, Double> heap = HeldLocksHeap.bytesPerLock(servers.target(), LockLibrary.all());
                out.println(" " + heap);
                table.addHeldLocksHeap(heap);
            }
            out.println();
            out.print(table.toText());
            write(header, table, results, names, failures);
            return failures.size();
        }
    }

    /**
     * One round of {@code scenario} for every library in {@code order}, interleaved when the
     * scenario does that. A library whose run throws gets a {@link ScenarioResult#failed} result
     * (both, when an interleaved run throws), its stack trace printed to stderr; an interruption
     * ends the run.
     */
    static Map<String, ScenarioResult> runRound(Scenario scenario, List<LockLibrary> order,
            BenchContext context) throws InterruptedException {
        Map<String, ScenarioResult> results = new LinkedHashMap<>();
        try {
            Map<String, ScenarioResult> interleaved = scenario.runInterleaved(order, context);
            if (interleaved != null) {
                return interleaved;
            }
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            ScenarioResult failed = failed(scenario, "all", e);
            order.forEach(library -> results.put(library.name(), failed));
            return results;
        }
        for (LockLibrary library : order) {
            try {
                results.put(library.name(), scenario.run(library, context));
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                results.put(library.name(), failed(scenario, library.name(), e));
            }
        }
        return results;
    }

    private static ScenarioResult failed(Scenario scenario, String library, Exception e) {
        System.err.println("bench: " + scenario.id() + " failed for " + library + ":");
        e.printStackTrace();
        return ScenarioResult.failed(String.valueOf(e).replace('\n', ' '));
    }

    /**
     * The measured round in the middle: by acquisitions/s for a throughput scenario, by p99 for a
     * latency one; its other figures come with it, so a row of the table is one real run. When
     * no round was measured, the last failed one.
     */
    static ScenarioResult median(List<ScenarioResult> rounds) {
        List<ScenarioResult> sorted = rounds.stream().filter(result -> !result.failed())
                .collect(Collectors.toCollection(ArrayList::new));
        if (sorted.isEmpty()) {
            return rounds.get(rounds.size() - 1);
        }
        sorted.sort(java.util.Comparator.comparingDouble(result -> result.acquisitionsPerSecond() != null
                ? result.acquisitionsPerSecond()
                : (double) result.latency().p99Micros()));
        return sorted.get(sorted.size() / 2);
    }

    private String header(BenchServers servers, Duration warmUp) {
        StringBuilder text = new StringBuilder();
        text.append(String.format(Locale.ROOT, "Padlock vs Redisson %s, %s%s%n", redissonVersion(), LocalDate.now(),
                options.topology() == Topology.SINGLE ? "" : ", on a " + options.topology().description()));
        text.append(String.format(Locale.ROOT, "%s; Java %s; %d cores%n", servers.description(),
                System.getProperty("java.version"), Runtime.getRuntime().availableProcessors()));
        text.append(String.format(Locale.ROOT,
                "%d rounds per scenario, the libraries' order flipping every round; each round %d s measured per"
                        + " library after %d s of warm-up; the median round of each library is reported;"
                        + " default settings for both%n",
                options.rounds(), options.seconds(), warmUp.toSeconds()));
        if (!servers.isControllable()) {
            text.append("(a server others may use: their commands count in the per-acquisition figures too)\n");
        }
        return text.toString();
    }

    private static String redissonVersion() {
        String version = org.redisson.Redisson.class.getPackage().getImplementationVersion();
        return version == null ? "(version unknown)" : version;
    }

    private static String summary(ScenarioResult result) {
        if (result.failed()) {
            return "FAILED: " + result.failure();
        }
        String main = result.latency() != null
                ? "p50 " + ResultTable.formatMicros(result.latency().p50Micros()) + ", p99 "
                        + ResultTable.formatMicros(result.latency().p99Micros())
                : String.format(Locale.ROOT, "%,.0f/s", result.acquisitionsPerSecond());
        return String.format(Locale.ROOT, "%s, %.2f calls, %.2f round trips / acquisition", main,
                result.cost().callsPerAcquisition(), result.roundTripsPerAcquisition());
    }

    private void write(String header, ResultTable table, Map<Scenario, Map<String, ScenarioResult>> results,
            List<String> names, List<String> failures) throws java.io.IOException {
        Path dir = options.out();
        Files.createDirectories(dir);
        Path markdown = dir.resolve("bench.md");
        Files.writeString(markdown, Markdown.of(header, table, results, options.topology(), failures),
                StandardCharsets.UTF_8);
        Map<String, String> titles = new LinkedHashMap<>();
        results.keySet().forEach(scenario -> titles.put(scenario.id(), scenario.title()));
        Map<String, double[]> throughputs = ResultTable.throughputs(results, names);
        out.println();
        out.println("Wrote " + markdown);
        if (!throughputs.isEmpty()) {
            Path chart = dir.resolve(options.topology().chartFileName());
            String on = options.topology() == Topology.SINGLE ? "" : " on a " + options.topology().description();
            AcquisitionsChart.write(chart, "Acquisitions/s" + on + ": " + names.get(0) + " vs " + names.get(1),
                    names, titles, throughputs);
            out.println("Wrote " + chart);
        }
    }
}
