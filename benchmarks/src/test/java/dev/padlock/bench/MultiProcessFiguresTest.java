package dev.padlock.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The figures the multi-process scenarios add, without a server: failed attempts (from the
 * calls by command, or from {@code MONITOR} lines), the per-process sums, and their rows.
 */
class MultiProcessFiguresTest {

    private static final LockLibrary PADLOCK = new PadlockLibrary();
    private static final LockLibrary REDISSON = new RedissonLibrary();

    @Test
    void theMonitorPassCountsTheScriptsWhoseLastCallIsPttlOfTheLock() {
        MonitorCounter.Lines lines = new MonitorCounter.Lines(List.of("bench:10a-x:0"));
        // a failed read acquire: its script line, then its calls, the last one PTTL of the lock
        lines.accept("1700000000.000001 [0 127.0.0.1:50000] \"evalsha\" \"abc\" \"3\" \"bench:10a-x:0\"");
        lines.accept("1700000000.000002 [0 lua] \"hget\" \"bench:10a-x:0\" \"mode\"");
        lines.accept("1700000000.000003 [0 lua] \"pttl\" \"bench:10a-x:0\"");
        // a successful read acquire: PTTL of the lock, then more
        lines.accept("1700000000.000004 [0 127.0.0.1:50001] \"evalsha\" \"abc\" \"3\" \"bench:10a-x:0\"");
        lines.accept("1700000000.000005 [0 lua] \"pttl\" \"bench:10a-x:0\"");
        lines.accept("1700000000.000006 [0 lua] \"pexpire\" \"bench:10a-x:0\" \"30000\"");
        // a read release: PTTL of another reader's lease key last
        lines.accept("1700000000.000007 [0 127.0.0.1:50002] \"evalsha\" \"def\" \"5\" \"bench:10a-x:0\"");
        lines.accept("1700000000.000008 [0 lua] \"pttl\" \"{bench:10a-x:0}:c:1:rwlock_timeout:1\"");
        lines.accept("1700000000.000009 [0 127.0.0.1:50003] \"ping\"");
        // a failed write acquire, the last line of the pass
        lines.accept("1700000000.000010 [0 127.0.0.1:50004] \"evalsha\" \"ghi\" \"3\" \"bench:10a-x:0\"");
        lines.accept("1700000000.000011 [0 lua] \"PTTL\" \"bench:10a-x:0\"");
        // a Padlock reader yielding to a waiting writer: PTTL of the gate last
        lines.accept("1700000000.000012 [0 127.0.0.1:50005] \"evalsha\" \"abc\" \"5\" \"bench:10a-x:0\"");
        lines.accept("1700000000.000013 [0 lua] \"pttl\" \"padlock_rw_gate:{bench:10a-x:0}\"");
        lines.end();

        assertThat(lines.topLevel()).isEqualTo(6);
        assertThat(lines.endingWithPttl()).isEqualTo(3);
    }

    @Test
    void failedAttemptsComeFromWhatEachLibrarysScriptsCall() {
        ServerCost cost = new ServerCost(100, 10, 0, 1, Map.of("pttl", 150L, "hexists", 320L));

        assertThat(FailedAttempts.of(PADLOCK, ContendedLock.LOCK)).isEqualTo(FailedAttempts.PTTL_CALLS);
        assertThat(FailedAttempts.of(REDISSON, ContendedLock.LOCK)).isEqualTo(FailedAttempts.PTTL_CALLS);
        assertThat(FailedAttempts.of(PADLOCK, ContendedLock.FAIR)).isEqualTo(FailedAttempts.HEXISTS_CALLS);
        assertThat(FailedAttempts.of(REDISSON, ContendedLock.FAIR)).isEqualTo(FailedAttempts.HEXISTS_BEYOND_RELEASES);
        assertThat(FailedAttempts.of(PADLOCK, ContendedLock.READ_WRITE))
                .isEqualTo(FailedAttempts.SCRIPTS_ENDING_WITH_PTTL);
        assertThat(FailedAttempts.of(REDISSON, ContendedLock.READ_WRITE))
                .isEqualTo(FailedAttempts.SCRIPTS_ENDING_WITH_PTTL);

        assertThat(FailedAttempts.PTTL_CALLS.perAcquisition(cost, 9)).isCloseTo(1.5, within(1e-9));
        assertThat(FailedAttempts.HEXISTS_BEYOND_RELEASES.perAcquisition(cost, 9)).isCloseTo(2.2, within(1e-9));
        assertThat(FailedAttempts.HEXISTS_CALLS.perAcquisition(cost, 9)).isCloseTo(3.2, within(1e-9));
        assertThat(FailedAttempts.SCRIPTS_ENDING_WITH_PTTL.perAcquisition(cost, 0.7)).isCloseTo(0.7, within(1e-9));
    }

    @Test
    void perThreadCountsAreSummedPerWorker() {
        assertThat(ProcessLoad.perProcess(new long[] {1, 2, 3, 4, 10, 20, 30, 40}, 4)).containsExactly(10, 100);
        assertThatThrownBy(() -> ProcessLoad.perProcess(new long[] {1, 2, 3}, 2))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theSeriesHasItsIdsTitlesAndRows() {
        List<Scenario> series = MultiProcessScenario.series();
        assertThat(series.stream().map(Scenario::id)).containsExactly("8a", "8b", "8c", "8d", "9a", "9b", "9c",
                "10a", "10b");
        assertThat(series.get(0).title()).isEqualTo("one lock, 1 JVM x 4 threads");
        assertThat(series.get(3).title()).isEqualTo("one lock, 8 JVMs x 4 threads");
        assertThat(series.get(6).title()).isEqualTo("one fair lock, 4 JVMs x 4 threads");
        assertThat(series.get(8).title()).isEqualTo("one read-write lock, 90 % reads, 4 JVMs x 4 threads");
        assertThat(MultiProcessScenario.twoProcesses().title()).isEqualTo("one lock, 2 JVMs x 4 threads");

        List<String> ids = Bench.scenarios().stream().map(Scenario::id).collect(Collectors.toList());
        assertThat(ids).containsSubsequence("4", "6a", "6b", "6c", "7i", "8a", "10b");

        ServerCost cost = new ServerCost(100, 10, 0, 1, Map.of("pttl", 150L));
        ScenarioResult padlock = new ScenarioResult(1000.0, new long[] {10, 20, 30, 40, 50, 60, 70, 80}, cost, 1.1, 0,
                null).withPerProcess(new long[] {100, 260}).withFailedAttempts(0.01);
        ScenarioResult redisson = new ScenarioResult(500.0, new long[] {5, 5, 5, 5, 5, 5, 5, 5}, cost, 4.4, 0, null)
                .withPerProcess(new long[] {20, 20}).withFailedAttempts(1.5);
        ResultTable table = new ResultTable(List.of("Padlock", "Redisson"));
        table.add(series.get(1), Map.of("Padlock", padlock, "Redisson", redisson));

        assertThat(table.rows().stream().map(ResultTable.Row::metric)).containsExactly("acquisitions/s",
                "Redis calls / acquisition", "round trips / acquisition", "failed attempts / acquisition",
                "fewest / most per process (ratio)",
                "fewest / most per thread (ratio)");
        assertThat(table.toText()).contains("100 / 260 (0.38)").contains("20 / 20 (1.00)").contains("0.01x");
    }
}
