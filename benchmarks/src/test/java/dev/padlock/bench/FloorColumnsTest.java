package dev.padlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The floor's columns in the table and its place in the run, without a server: which scenarios it
 * runs, its figure and the Padlock/floor ratio in their rows, empty cells elsewhere, and no floor
 * columns at all in a table without a floor row.
 */
class FloorColumnsTest {

    private static final List<String> LIBRARIES = List.of("Padlock", "Redisson");

    private static final ScenarioResult PADLOCK = result(3000, new ServerCost(300, 4, 0, 20, Map.of("evalsha", 600L)));
    private static final ScenarioResult REDISSON = result(1500,
            new ServerCost(150, 10, 0, 40, Map.of("evalsha", 300L)));
    private static final ScenarioResult FLOOR = result(6000, new ServerCost(600, 8, 0, 10,
            Map.of("evalsha", 1200L, "exists", 600L, "hincrby", 1200L, "pexpire", 600L, "del", 600L, "publish", 600L)));

    @Test
    void theFloorRunsOnlyTheUncontendedPlainLockRows() {
        for (Topology topology : Topology.values()) {
            List<String> withFloor = Bench.scenarios(topology).stream().filter(Scenario::withFloor).map(Scenario::id)
                    .collect(Collectors.toList());
            assertThat(withFloor).as("%s", topology).containsExactly("1", "1b", "2", "7a");
        }
        Scenario uncontended = scenario("1");
        Scenario contended = scenario("3");

        assertThat(LockLibrary.contenders(uncontended).stream().map(LockLibrary::name))
                .containsExactly("Padlock", "Redisson", FloorLibrary.NAME);
        assertThat(LockLibrary.contenders(contended).stream().map(LockLibrary::name))
                .containsExactly("Padlock", "Redisson");
        assertThat(LockLibrary.floor().name()).isEqualTo("floor");
    }

    @Test
    void floorRowsShowTheFloorAndPadlockOverIt() {
        ResultTable table = new ResultTable(LIBRARIES);
        table.add(scenario("1"), withFloor(FLOOR));
        table.add(scenario("3"), Map.of("Padlock", PADLOCK, "Redisson", REDISSON));
        table.addAllocation(Map.of("Padlock", 400.0, "Redisson", 4000.0));

        assertThat(table.rows()).filteredOn(row -> row.scenario().startsWith("1  "))
                .extracting(ResultTable.Row::metric).containsExactly("acquisitions/s", "Redis calls / acquisition",
                        "round trips / acquisition", "(UN)SUBSCRIBE / acquisition", "Redis CPU ms / 1000 acq.",
                        "keys left besides the locks");
        List<ResultTable.Row> first = table.rows().stream().filter(row -> row.scenario().startsWith("1  "))
                .collect(Collectors.toList());
        assertThat(first.get(0)).isEqualTo(new ResultTable.Row("1  uncontended lock(30 s) + unlock", "acquisitions/s",
                "3,000", "1,500", "2.00x", "6,000", "0.50x"));
        assertThat(first.get(1)).isEqualTo(new ResultTable.Row("1  uncontended lock(30 s) + unlock",
                "Redis calls / acquisition", "4.00", "10.00", "0.40x", "8.00", "0.50x"));
        assertThat(first.get(first.size() - 1).floor()).isEqualTo("0");
        assertThat(first.get(first.size() - 1).floorRatio()).isEmpty();

        assertThat(table.rows()).filteredOn(row -> !row.scenario().startsWith("1  "))
                .allMatch(row -> row.floor().isEmpty() && row.floorRatio().isEmpty());

        String text = table.toText();
        assertThat(text.lines().findFirst().orElseThrow().split(" {2,}"))
                .containsExactly("scenario", "metric", "Padlock", "Redisson", "Padlock/Redisson", "floor",
                        "Padlock/floor");
        assertThat(text).containsPattern("acquisitions/s +3,000 +1,500 +2.00x +6,000 +0.50x\n");

        String markdown = table.toMarkdown();
        assertThat(markdown).startsWith("""
                | scenario | metric | Padlock | Redisson | Padlock/Redisson | floor | Padlock/floor |
                | --- | --- | ---: | ---: | ---: | ---: | ---: |
                | 1  uncontended lock(30 s) + unlock | acquisitions/s | 3,000 | 1,500 | 2.00x | 6,000 | 0.50x |
                """)
                .contains("| 3  one lock, 4 threads of one client | acquisitions/s | 3,000 | 1,500 | 2.00x |  |  |\n")
                .contains("| bytes allocated / pair | 400 | 4,000 | 0.10x |  |  |\n");
    }

    @Test
    void theAllocationRowShowsTheFloorWhenJmhMeasuredIt() {
        ResultTable table = new ResultTable(LIBRARIES);
        table.addAllocation(Map.of("Padlock", 4000.0, "Redisson", 16000.0, FloorLibrary.NAME, 2000.0));

        assertThat(table.rows()).containsExactly(new ResultTable.Row("JMH  uncontended lock(30 s) + unlock",
                "bytes allocated / pair", "4,000", "16,000", "0.25x", "2,000", "2.00x"));
        assertThat(LockLibrary.byName("FLOOR").name()).isEqualTo(FloorLibrary.NAME);
    }

    @Test
    void aTableWithoutAFloorRowKeepsItsFiveColumns() {
        ResultTable table = new ResultTable(LIBRARIES);
        table.add(scenario("3"), Map.of("Padlock", PADLOCK, "Redisson", REDISSON));

        assertThat(table.toMarkdown()).startsWith("""
                | scenario | metric | Padlock | Redisson | Padlock/Redisson |
                | --- | --- | ---: | ---: | ---: |
                """);
        assertThat(table.toText()).doesNotContain("floor");
    }

    @Test
    void aFloorThatFailedShowsFailedAndNoRatio() {
        ResultTable table = new ResultTable(LIBRARIES);
        table.add(scenario("7a"), withFloor(ScenarioResult.failed("java.lang.IllegalStateException: gone")));
        ScenarioResult failed = ScenarioResult.failed("java.lang.IllegalStateException: gone");
        table.add(scenario("1b"), Map.of("Padlock", failed, "Redisson", failed, FloorLibrary.NAME, FLOOR));

        assertThat(table.rows().get(0)).isEqualTo(new ResultTable.Row("7a  uncontended getLock", "acquisitions/s",
                "3,000", "1,500", "2.00x", ResultTable.FAILED, "n/a"));
        assertThat(table.rows()).filteredOn(row -> row.scenario().startsWith("1b"))
                .allMatch(row -> row.first().equals(ResultTable.FAILED) && !row.floor().equals(ResultTable.FAILED));
    }

    @Test
    void benchMdBreaksTheFloorsCallsDownAndSaysWhatItIs() {
        ResultTable table = new ResultTable(LIBRARIES);
        Map<Scenario, Map<String, ScenarioResult>> results = new LinkedHashMap<>();
        results.put(scenario("1"), withFloor(FLOOR));
        results.forEach(table::add);

        String markdown = Markdown.of("header\n", table, results);

        assertThat(markdown).contains("- 1 floor: evalsha 2.00, hincrby 2.00, del 1.00, exists 1.00, pexpire 1.00,"
                + " publish 1.00").contains("- *floor* (1, 1b, 2, 7a): ").contains("| floor | Padlock/floor |");
        assertThat(ResultTable.throughputs(results, LIBRARIES).get("1")).containsExactly(3000, 1500);
    }

    private static Map<String, ScenarioResult> withFloor(ScenarioResult floor) {
        Map<String, ScenarioResult> results = new LinkedHashMap<>();
        results.put("Padlock", PADLOCK);
        results.put("Redisson", REDISSON);
        results.put(FloorLibrary.NAME, floor);
        return results;
    }

    private static Scenario scenario(String id) {
        return Bench.scenarios().stream().filter(scenario -> scenario.id().equals(id)).findFirst().orElseThrow();
    }

    private static ScenarioResult result(double perSecond, ServerCost cost) {
        return new ScenarioResult(perSecond, new long[] {cost.acquisitions()}, cost, 2, 0, null);
    }

    @Test
    void theHeldLocksRowShowsHeapPerLockForBothLibraries() {
        ResultTable table = new ResultTable(LIBRARIES);
        table.addHeldLocksHeap(Map.of("Padlock", 450.0, "Redisson", 600.0));

        assertThat(table.rows()).singleElement().isEqualTo(new ResultTable.Row("heap  50,000 watchdog-held locks",
                "client heap bytes / held lock", "450", "600", "0.75x"));
    }
}
