package dev.padlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A round that fails for one library is reported as failed for that library, the other still
 * measured, without a server: a scenario that fails for Redisson only.
 */
class FailedRoundTest {

    private static final ServerCost COST = new ServerCost(100, 10, 0, 1, Map.of("pttl", 10L));

    @Test
    void aFailingLibraryGetsAFailedResultAndTheOtherIsMeasured() throws Exception {
        Map<String, ScenarioResult> round = Bench.runRound(new FailsForRedisson(), LockLibrary.all(), null);

        assertThat(round.get("Padlock").failed()).isFalse();
        assertThat(round.get("Redisson").failure()).contains("Unable to acquire subscription lock");
    }

    @Test
    void theRowShowsTheMedianMeasuredRoundOrFailed() throws Exception {
        ScenarioResult failed = ScenarioResult.failed("java.lang.IllegalStateException: worker 3 is gone");
        ScenarioResult slow = new ScenarioResult(100.0, new long[] {50, 50}, COST, 2, 0, null);
        ScenarioResult fast = new ScenarioResult(300.0, new long[] {150, 150}, COST, 2, 0, null);
        assertThat(Bench.median(List.of(slow, failed, fast))).isSameAs(fast);
        assertThat(Bench.median(List.of(failed, failed))).isSameAs(failed);

        Scenario scenario = new FailsForRedisson();
        Map<String, ScenarioResult> byLibrary = new LinkedHashMap<>();
        byLibrary.put("Padlock", slow);
        byLibrary.put("Redisson", failed);
        ResultTable table = new ResultTable(List.of("Padlock", "Redisson"));
        table.add(scenario, byLibrary);
        table.add(scenario, Map.of("Padlock", failed, "Redisson", failed));

        assertThat(table.rows()).allMatch(row -> row.second().equals(ResultTable.FAILED));
        assertThat(table.rows().get(0)).isEqualTo(new ResultTable.Row("x  fails for Redisson", "acquisitions/s", "100",
                "failed", "n/a"));
        assertThat(table.rows().get(table.rows().size() - 1).metric()).isEqualTo("measured");
        assertThat(ResultTable.throughputs(Map.of(scenario, byLibrary), List.of("Padlock", "Redisson"))).isEmpty();

        String markdown = Markdown.of("header\n", table, Map.of(scenario, byLibrary), Topology.SINGLE,
                List.of("x Redisson, round 1: " + failed.failure()));
        assertThat(markdown).contains("- x Redisson: failed").contains("## Failed rounds")
                .contains("- x Redisson, round 1: java.lang.IllegalStateException: worker 3 is gone");
    }

    /** Measures 100/s for Padlock; throws as Redisson's lock does when it cannot subscribe in time. */
    private static final class FailsForRedisson implements Scenario {

        @Override
        public String id() {
            return "x";
        }

        @Override
        public String title() {
            return "fails for Redisson";
        }

        @Override
        public ScenarioResult run(LockLibrary library, BenchContext context) {
            if (library instanceof RedissonLibrary) {
                throw new IllegalStateException("Unable to acquire subscription lock after 7500ms");
            }
            return new ScenarioResult(100.0, new long[] {100}, COST, 2, 0, null);
        }
    }
}
