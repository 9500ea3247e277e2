package dev.padlock.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.padlock.testing.RedisBinary;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runner works end to end for both libraries on a Redis it starts: a short run of an
 * uncontended pair (the floor's too), two worker JVMs (with their failed attempts and per-process
 * counts), a same-client wake-up and a red lock of the lock family;
 * then every kind of the family, measured for a fraction of a second; then the cluster scenarios
 * without a wake-up latency on a 3-master cluster, a fraction of a second each; the floor wherever
 * it runs. Figures are not
 * asserted on (timing belongs to the benchmark itself), only that every row was measured and
 * written, and that on the cluster every master is counted.
 */
class BenchSmokeTest {

    @Test
    void aShortRunWritesTheTableAndTheChart(@TempDir Path out) throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        BenchOptions options = new BenchOptions(1, 1, List.of("1", "4", "6b", "7h"), out, Optional.empty(), false,
                Topology.SINGLE);

        int failedRounds = new Bench(options, new PrintStream(printed, true, StandardCharsets.UTF_8)).run();

        assertThat(failedRounds).as(printed.toString(StandardCharsets.UTF_8)).isZero();

        String table = Files.readString(out.resolve("bench.md"));
        for (String row : List.of("| 1  uncontended", "| 4  one lock, 2 JVMs", "| 6b  wake-up latency",
                "| 7h  uncontended getRedLock over 3 locks on one server")) {
            assertThat(table).contains(row);
        }
        assertThat(table).contains("acquisitions/s").contains("round trips / acquisition").contains("wake-up p99")
                .contains("failed attempts / acquisition").contains("fewest / most per process")
                .contains("| floor | Padlock/floor |").contains("- 1 floor: ");
        assertThat(Files.size(out.resolve("acquisitions.png"))).isPositive();
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("Padlock").contains("Redisson");
    }

    @Test
    void aNumberSelectsItsLetteredScenarios() {
        Function<String, List<String>> selected = ids -> Bench.scenarios().stream()
                .filter(BenchOptions.parse("--scenarios", ids)::selects).map(Scenario::id).collect(Collectors.toList());

        assertThat(selected.apply("6")).containsExactly("6a", "6b", "6c");
        assertThat(selected.apply("8")).containsExactly("8a", "8b", "8c", "8d");
        assertThat(selected.apply("9,10")).containsExactly("9a", "9b", "9c", "10a", "10b");
        assertThat(selected.apply("11")).containsExactly("11a");
        assertThat(selected.apply("1")).containsExactly("1", "1b");
        assertThat(selected.apply("6c,8d")).containsExactly("6c", "8d");
    }

    @Test
    void scenarioSevenSelectsTheWholeLockFamily() {
        BenchOptions options = BenchOptions.parse("--scenarios", "7");

        List<String> ids = Bench.scenarios().stream().filter(options::selects).map(Scenario::id)
                .collect(Collectors.toList());

        assertThat(ids).containsExactly("7a", "7b", "7c", "7d", "7e", "7f", "7g", "7h", "7i");
    }

    @Test
    void everyLockKindIsMeasuredForBothLibraries() throws Exception {
        try (BenchServers servers = BenchServers.start(Topology.SINGLE, Optional.empty())) {
            BenchContext context = new BenchContext(servers, Duration.ofMillis(200), Duration.ofMillis(100),
                    Duration.ofMillis(200));
            List<String> names = LockLibrary.all().stream().map(LockLibrary::name).collect(Collectors.toList());
            ResultTable table = new ResultTable(names);
            for (Scenario scenario : LockFamilyScenario.all(Topology.SINGLE)) {
                Map<String, ScenarioResult> results = new LinkedHashMap<>();
                for (LockLibrary library : LockLibrary.contenders(scenario)) {
                    ScenarioResult result = scenario.run(library, context);
                    assertThat(result.acquisitionsPerSecond()).as("%s %s", scenario.id(), library.name()).isPositive();
                    assertThat(result.roundTripsPerAcquisition()).as("%s %s", scenario.id(), library.name()).isPositive();
                    results.put(library.name(), result);
                }
                table.add(scenario, results);
            }

            String text = table.toText();
            for (LockKind kind : LockKind.values()) {
                assertThat(text).contains(kind.call());
            }
            assertThat(text).contains("7i  getFairLock, 4 threads of one client").contains("fewest / most per thread")
                    .doesNotContain("Redis CPU").contains("Padlock/floor");
        }
    }

    @Test
    void theClusterTopologyIsAnOptionOfItsOwn() {
        BenchOptions cluster = BenchOptions.parse("--topology", "cluster");

        assertThat(cluster.topology()).isEqualTo(Topology.CLUSTER);
        assertThat(cluster.out()).isEqualTo(Path.of("benchmarks", "target", "bench", "cluster"));
        assertThat(Topology.CLUSTER.chartFileName()).isEqualTo("acquisitions-cluster.png");
        assertThat(BenchOptions.parse().topology()).isEqualTo(Topology.SINGLE);
        assertThat(BenchOptions.parse().out()).isEqualTo(Path.of("benchmarks", "target", "bench"));
        assertThatThrownBy(() -> BenchOptions.parse("--topology", "cluster", "--redis", "redis://127.0.0.1:6379"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--redis");
        assertThatThrownBy(() -> BenchOptions.parse("--topology", "sentinel"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sentinel");
        assertThat(RedisTarget.parse(RedisTarget.cluster(List.of("redis://a:1", "redis://b:2")).argument()))
                .isEqualTo(RedisTarget.cluster(List.of("redis://a:1", "redis://b:2")));
    }

    @Test
    void onAClusterTheScenariosRunAndEveryMasterIsCounted() throws Exception {
        Assumptions.assumeTrue(RedisBinary.onPath().or(RedisBinary::embedded).isPresent(),
                "no redis-server binary to start a cluster with");
        try (BenchServers servers = BenchServers.start(Topology.CLUSTER, Optional.empty())) {
            assertThat(servers.admins()).hasSize(Topology.CLUSTER_MASTERS);
            Map<Integer, Long> locksPerMaster = servers.lockNames("smoke", 16).stream()
                    .collect(Collectors.groupingBy(servers::masterOf, Collectors.counting()));
            assertThat(locksPerMaster).containsOnlyKeys(0, 1, 2).containsValues(6L, 5L);

            BenchContext context = new BenchContext(servers, Duration.ofMillis(200), Duration.ofMillis(100),
                    Duration.ofMillis(200));
            List<String> ids = List.of("1", "3b", "4", "5");
            List<String> names = LockLibrary.all().stream().map(LockLibrary::name).collect(Collectors.toList());
            ResultTable table = new ResultTable(names, Topology.CLUSTER);
            Map<Scenario, Map<String, ScenarioResult>> results = new LinkedHashMap<>();
            for (Scenario scenario : Bench.scenarios(Topology.CLUSTER)) {
                if (!ids.contains(scenario.id())) {
                    continue;
                }
                Map<String, ScenarioResult> byLibrary = new LinkedHashMap<>();
                for (LockLibrary library : LockLibrary.contenders(scenario)) {
                    ScenarioResult result = scenario.run(library, context);
                    assertThat(result.acquisitionsPerSecond()).as("%s %s", scenario.id(), library.name()).isPositive();
                    assertThat(result.cost().callsPerAcquisition()).as("%s %s", scenario.id(), library.name())
                            .isPositive();
                    byLibrary.put(library.name(), result);
                }
                results.put(scenario, byLibrary);
                table.add(scenario, byLibrary);
            }
            assertThat(results.keySet().stream().map(Scenario::id)).containsExactlyElementsOf(ids);
            // A lock and an unlock are at least two commands, wherever the locks live: with only one
            // master's MONITOR, scenario 5 (locks on all three) would count about a third of them.
            Function<String, Scenario> byId = id -> results.keySet().stream().filter(s -> s.id().equals(id))
                    .findFirst().orElseThrow();
            for (String id : List.of("1", "5")) {
                results.get(byId.apply(id)).forEach((library, result) -> assertThat(result.roundTripsPerAcquisition())
                        .as("%s %s", id, library).isGreaterThanOrEqualTo(1.9));
            }

            String text = table.toText();
            assertThat(results.get(byId.apply("1"))).containsKey(FloorLibrary.NAME);
            assertThat(text).startsWith("scenario (Redis Cluster, 3 masters, no replicas)")
                    .contains("PUBLISH / SPUBLISH per acquisition").contains("SUBSCRIBE / SSUBSCRIBE per acquisition");
            String markdown = Markdown.of("header\n", table, results, Topology.CLUSTER);
            assertThat(markdown).startsWith("# Padlock vs Redisson on a Redis Cluster")
                    .contains("| scenario (Redis Cluster, 3 masters, no replicas) |")
                    .contains("![acquisitions/s](acquisitions-cluster.png)");
        }
    }
}
