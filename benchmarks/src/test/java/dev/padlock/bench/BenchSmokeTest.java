package dev.padlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.RedisProvisioner;
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
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runner works end to end for both libraries on a Redis it starts: a short run of an
 * uncontended pair, two worker JVMs, a same-client wake-up and a red lock of the lock family;
 * then every kind of the family, measured for a fraction of a second. Figures are not asserted on
 * (timing belongs to the benchmark itself), only that every row was measured and written.
 */
class BenchSmokeTest {

    @Test
    void aShortRunWritesTheTableAndTheChart(@TempDir Path out) throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        BenchOptions options = new BenchOptions(1, 1, List.of("1", "4", "6b", "7h"), out, Optional.empty(), false);

        new Bench(options, new PrintStream(printed, true, StandardCharsets.UTF_8)).run();

        String table = Files.readString(out.resolve("bench.md"));
        for (String row : List.of("| 1  uncontended", "| 4  one lock, 2 JVMs", "| 6b  wake-up latency",
                "| 7h  uncontended getRedLock over 3 locks on one server")) {
            assertThat(table).contains(row);
        }
        assertThat(table).contains("acquisitions/s").contains("round trips / acquisition").contains("wake-up p99");
        assertThat(Files.size(out.resolve("acquisitions.png"))).isPositive();
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("Padlock").contains("Redisson");
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
        try (RedisEndpoint endpoint = RedisProvisioner.provisionControllable(List.of());
                RedisAdmin admin = endpoint.admin()) {
            BenchContext context = new BenchContext(endpoint.uri(), admin, Duration.ofMillis(200),
                    Duration.ofMillis(100), Duration.ofMillis(200));
            List<String> names = LockLibrary.all().stream().map(LockLibrary::name).collect(Collectors.toList());
            ResultTable table = new ResultTable(names);
            for (Scenario scenario : LockFamilyScenario.all()) {
                Map<String, ScenarioResult> results = new LinkedHashMap<>();
                for (LockLibrary library : LockLibrary.all()) {
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
                    .doesNotContain("Redis CPU");
        }
    }
}
