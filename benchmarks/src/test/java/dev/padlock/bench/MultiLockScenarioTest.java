package dev.padlock.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.padlock.testing.RedisBinary;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Scenarios 12a-12c, a multi lock of many plain locks taken and released by one thread: without
 * a server, their ids, titles and rows, and the check that no lock key is left; then a short run
 * of 12a for both libraries on a Redis it starts, and of 12c on a 3-master cluster, whose figures
 * must be sane (no lock key left, at least the calls a lock-and-unlock of every component cannot
 * do without), with 12c's names in one slot per master. No timing is asserted, nor how many round
 * trips a library makes: the run's figures belong to the benchmark itself.
 */
class MultiLockScenarioTest {

    private static final ServerCost COST = new ServerCost(10, 1200, 0, 1, Map.of("evalsha", 2000L));

    @Test
    void theyAreScenariosTwelveAToTwelveCWithTheHeadlineRows() {
        Function<Topology, List<String>> ids = topology -> Bench.scenarios(topology).stream().map(Scenario::id)
                .filter(id -> id.startsWith("12")).collect(Collectors.toList());
        assertThat(ids.apply(Topology.SINGLE)).containsExactly("12a", "12b");
        assertThat(ids.apply(Topology.CLUSTER)).containsExactly("12a", "12b", "12c");
        assertThat(Bench.scenarios().stream().filter(BenchOptions.parse("--scenarios", "12")::selects)
                .map(Scenario::id)).containsExactly("12a", "12b");
        assertThat(BenchOptions.USAGE).contains("1,1b,2,3,3b,4,5,6,7,8,9,10,11,12").contains("'12' 12a-12b");

        List<Scenario> single = MultiLockScenario.all(Topology.SINGLE);
        assertThat(single.get(0).title()).isEqualTo("uncontended multi lock of 100 locks, lock() + unlock()");
        assertThat(single.get(1).title()).isEqualTo("uncontended multi lock of 1,000 locks, lock() + unlock()");
        List<Scenario> cluster = MultiLockScenario.all(Topology.CLUSTER);
        assertThat(cluster.get(0).title()).endsWith("100 locks, lock() + unlock(), no hash tag (a slot each)");
        assertThat(cluster.get(2).title()).endsWith("100 locks, lock() + unlock(), a hash tag per master (3 slots)");
        assertThat(LockLibrary.contenders(single.get(0)).stream().map(LockLibrary::name))
                .containsExactly("Padlock", "Redisson");
        assertThat(single.get(0).charted()).isFalse();

        ScenarioResult padlock = new ScenarioResult(50.0, new long[] {10}, COST, 6.0, 0, null);
        ScenarioResult redisson = new ScenarioResult(5.0, new long[] {10}, COST, 400.0, 10, null);
        ResultTable table = new ResultTable(List.of("Padlock", "Redisson"));
        table.add(single.get(0), Map.of("Padlock", padlock, "Redisson", redisson));
        assertThat(table.rows().stream().map(ResultTable.Row::metric)).containsExactly("acquisitions/s",
                "Redis calls / acquisition", "round trips / acquisition");
        assertThat(table.rows().get(0).ratio()).isEqualTo("10.00x");

        ResultTable onCluster = new ResultTable(List.of("Padlock", "Redisson"), Topology.CLUSTER);
        onCluster.add(cluster.get(2), Map.of("Padlock", padlock, "Redisson", redisson));
        assertThat(onCluster.rows().stream().map(ResultTable.Row::metric)).containsExactly("acquisitions/s",
                "Redis calls / acquisition", "round trips / acquisition", "round trips / acquisition / master");
        assertThat(onCluster.rows().get(3)).isEqualTo(new ResultTable.Row(
                "12c  uncontended multi lock of 100 locks, lock() + unlock(), a hash tag per master (3 slots)",
                "round trips / acquisition / master", "2.00", "133.33", "0.02x"));
    }

    @Test
    void aLockKeyLeftFailsTheRound() {
        MultiLockScenario.requireNoLockLeft(100, List.of());
        assertThatThrownBy(() -> MultiLockScenario.requireNoLockLeft(100, List.of("bench:a:1", "bench:a:7")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("2 of the multi lock's 100 lock keys are still on Redis after the run (every iteration"
                        + " unlocked them all): [bench:a:1, bench:a:7]");
        List<String> many = IntStream.range(0, 8).mapToObj(i -> "k" + i).collect(Collectors.toList());
        assertThatThrownBy(() -> MultiLockScenario.requireNoLockLeft(100, many))
                .hasMessageEndingWith(": [k0, k1, k2, k3, k4] ...");
    }

    @Test
    void aShortRunOfBothLibrariesLeavesNoLockKey() throws Exception {
        Scenario scenario = MultiLockScenario.all(Topology.SINGLE).get(0);
        try (BenchServers servers = BenchServers.start(Topology.SINGLE, Optional.empty())) {
            assertThat(servers.hashTaggedLockNames("t", 3)).containsExactly("bench:{t-m0}:0", "bench:{t-m0}:1",
                    "bench:{t-m0}:2");
            Map<String, ScenarioResult> results = shortRun(scenario, servers);
            assertThat(servers.keys("bench:12a-*")).isEmpty();

            ResultTable table = new ResultTable(List.of("Padlock", "Redisson"));
            table.add(scenario, results);
            assertThat(table.toText()).contains("12a  uncontended multi lock of 100 locks, lock() + unlock()");
        }
    }

    @Test
    void onAClusterTwelveCHasOneSlotPerMaster() throws Exception {
        Assumptions.assumeTrue(RedisBinary.onPath().or(RedisBinary::embedded).isPresent(),
                "no redis-server binary to start a cluster with");
        Scenario scenario = MultiLockScenario.all(Topology.CLUSTER).get(2);
        try (BenchServers servers = BenchServers.start(Topology.CLUSTER, Optional.empty())) {
            List<String> names = servers.hashTaggedLockNames("12c-x", MultiLockScenario.HUNDRED);
            Map<Integer, Set<Integer>> slotsByMaster = names.stream().collect(Collectors.groupingBy(servers::masterOf,
                    Collectors.mapping(SlotHash::getSlot, Collectors.toSet())));
            assertThat(slotsByMaster).containsOnlyKeys(0, 1, 2).allSatisfy((master, slots) -> assertThat(slots)
                    .hasSize(1));
            assertThat(names.stream().collect(Collectors.groupingBy(servers::masterOf, Collectors.counting())))
                    .containsValues(34L, 33L);

            Map<String, ScenarioResult> results = shortRun(scenario, servers);
            ResultTable table = new ResultTable(List.of("Padlock", "Redisson"), Topology.CLUSTER);
            table.add(scenario, results);
            assertThat(table.toText()).contains("round trips / acquisition / master");
        }
    }

    /**
     * Runs {@code scenario} briefly for both libraries on {@code servers} and checks what holds
     * whatever the engine: an acquisition made, no lock key left, at least a write to take and a
     * delete to release each component, and a round trip each way.
     */
    private static Map<String, ScenarioResult> shortRun(Scenario scenario, BenchServers servers) throws Exception {
        BenchContext context = new BenchContext(servers, Duration.ofMillis(500), Duration.ofMillis(200),
                Duration.ofMillis(300));
        Map<String, ScenarioResult> results = new LinkedHashMap<>();
        for (LockLibrary library : LockLibrary.contenders(scenario)) {
            ScenarioResult result = scenario.run(library, context);
            String as = library.name();
            assertThat(result.acquisitionsPerSecond()).as(as).isPositive();
            assertThat(result.cost().callsPerAcquisition()).as(as)
                    .isGreaterThanOrEqualTo(2.0 * MultiLockScenario.HUNDRED);
            assertThat(result.roundTripsPerAcquisition()).as(as).isGreaterThanOrEqualTo(2.0);
            assertThat(result.perThread()).as(as).hasSize(1);
            results.put(library.name(), result);
        }
        return results;
    }
}
