package dev.padlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runner works end to end for both libraries on a Redis it starts: a short run of an
 * uncontended pair, two worker JVMs, and a same-client wake-up. Figures are not asserted on
 * (timing belongs to the benchmark itself), only that every row was measured and written.
 */
class BenchSmokeTest {

    @Test
    void aShortRunWritesTheTableAndTheChart(@TempDir Path out) throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        BenchOptions options = new BenchOptions(1, 1, List.of("1", "4", "6b"), out, Optional.empty(), false);

        new Bench(options, new PrintStream(printed, true, StandardCharsets.UTF_8)).run();

        String table = Files.readString(out.resolve("bench.md"));
        for (String row : List.of("| 1  uncontended", "| 4  one lock, 2 JVMs", "| 6b  wake-up latency")) {
            assertThat(table).contains(row);
        }
        assertThat(table).contains("acquisitions/s").contains("round trips / acquisition").contains("wake-up p99");
        assertThat(Files.size(out.resolve("acquisitions.png"))).isPositive();
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("Padlock").contains("Redisson");
    }
}
