package dev.padlock.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Scenario 11a, one semaphore of 4 permits contended by 4 worker JVMs of 4 threads: without a
 * server, its id, title and rows, how its failed attempts are counted and the check of the permits
 * after the run; then a short run of both libraries on a Redis it starts, whose figures must be
 * sane (every permit back on Redis, at least the calls and round trips an acquisition cannot do
 * without). No timing is asserted: the run's figures belong to the benchmark itself.
 */
class SemaphoreScenarioTest {

    private static final ServerCost COST = new ServerCost(100, 10, 0, 1, Map.of("get", 250L, "decrby", 100L));

    @Test
    void itIsScenarioElevenAWithTheHeadlineRowsAndTheFreePermits() {
        Scenario scenario = SemaphoreScenario.fourProcesses();
        assertThat(scenario.id()).isEqualTo("11a");
        assertThat(scenario.title()).isEqualTo("one semaphore of 4 permits, 4 JVMs x 4 threads");
        assertThat(scenario.charted()).isFalse();
        assertThat(LockLibrary.contenders(scenario).stream().map(LockLibrary::name))
                .containsExactly("Padlock", "Redisson");
        assertThat(Bench.scenarios().stream().map(Scenario::id).collect(Collectors.toList()))
                .containsSequence("10b", "11a");

        ScenarioResult padlock = new ScenarioResult(1000.0, new long[] {10, 20, 30, 40, 50, 60, 70, 80, 1, 2, 3, 4,
                5, 6, 7, 8}, COST, 2.0, 0, null).withPerProcess(new long[] {100, 260, 10, 26})
                .withFailedAttempts(0.5).withFreePermitsAfter(4);
        ScenarioResult redisson = new ScenarioResult(500.0, new long[16], COST, 4.0, 0, null)
                .withPerProcess(new long[4]).withFailedAttempts(1.5).withFreePermitsAfter(4);
        ResultTable table = new ResultTable(List.of("Padlock", "Redisson"));
        table.add(scenario, Map.of("Padlock", padlock, "Redisson", redisson));

        assertThat(table.rows().stream().map(ResultTable.Row::metric)).containsExactly("acquisitions/s",
                "Redis calls / acquisition", "round trips / acquisition", "failed attempts / acquisition",
                "free permits on Redis after the run", "fewest / most per process (ratio)",
                "fewest / most per thread (ratio)");
        assertThat(table.rows().get(4)).isEqualTo(new ResultTable.Row(
                "11a  one semaphore of 4 permits, 4 JVMs x 4 threads", "free permits on Redis after the run", "4", "4",
                ""));
        assertThat(ResultTable.throughputs(Map.of(scenario, Map.of("Padlock", padlock, "Redisson", redisson)),
                List.of("Padlock", "Redisson"))).isEmpty();
    }

    @Test
    void failedAttemptsAreTheGetsBeyondTheDecrbysForBothLibraries() {
        for (LockLibrary library : LockLibrary.all()) {
            assertThat(FailedAttempts.of(library, ContendedLock.SEMAPHORE)).isEqualTo(FailedAttempts.GETS_BEYOND_DECRBYS);
        }
        assertThat(FailedAttempts.GETS_BEYOND_DECRBYS.perAcquisition(COST, 9)).isCloseTo(1.5, within(1e-9));
    }

    @Test
    void aPermitLostOrMadeFailsTheRound() {
        assertThat(SemaphoreScenario.requireAllPermits("s", "4")).isEqualTo(4);
        assertThatThrownBy(() -> SemaphoreScenario.requireAllPermits("s", "3")).isInstanceOf(IllegalStateException.class)
                .hasMessage("Semaphore s has 3 free permits on Redis after the run, expected 4: 1 lost");
        assertThatThrownBy(() -> SemaphoreScenario.requireAllPermits("s", "6")).isInstanceOf(IllegalStateException.class)
                .hasMessageEndingWith("expected 4: 2 made");
        assertThatThrownBy(() -> SemaphoreScenario.requireAllPermits("s", null)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no count on Redis");
    }

    @Test
    void aShortRunOfBothLibrariesGivesEveryPermitBack() throws Exception {
        Scenario scenario = SemaphoreScenario.fourProcesses();
        try (BenchServers servers = BenchServers.start(Topology.SINGLE, Optional.empty())) {
            BenchContext context = new BenchContext(servers, Duration.ofMillis(500), Duration.ofMillis(200),
                    Duration.ofMillis(300));
            Map<String, ScenarioResult> results = new LinkedHashMap<>();
            for (LockLibrary library : LockLibrary.contenders(scenario)) {
                ScenarioResult result = scenario.run(library, context);
                String as = library.name();
                assertThat(result.freePermitsAfter()).as(as).isEqualTo(SemaphoreScenario.PERMITS);
                assertThat(result.acquisitionsPerSecond()).as(as).isPositive();
                // two scripts (acquire, release) and their GET, DECRBY, INCRBY and PUBLISH at least
                assertThat(result.cost().callsPerAcquisition()).as(as).isGreaterThanOrEqualTo(6.0);
                assertThat(result.roundTripsPerAcquisition()).as(as).isGreaterThanOrEqualTo(2.0);
                assertThat(result.failedAttemptsPerAcquisition()).as(as).isNotNull().isGreaterThanOrEqualTo(0.0);
                assertThat(result.perThread()).as(as).hasSize(16);
                assertThat(result.perProcess()).as(as).hasSize(4);
                assertThat(result.keysLeft()).as(as).isZero();
                results.put(library.name(), result);
            }
            assertThat(servers.keys("bench:11a-*")).isEmpty();

            ResultTable table = new ResultTable(List.of("Padlock", "Redisson"));
            table.add(scenario, results);
            assertThat(table.toText()).contains("11a  one semaphore of 4 permits, 4 JVMs x 4 threads")
                    .contains("free permits on Redis after the run");
        }
    }
}
