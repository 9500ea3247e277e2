package dev.padlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The hand-off ceiling on a Redis the test starts: it measures something (hand-offs did happen,
 * one after the other) and leaves nothing behind; and the table's row is each library's share of it.
 */
class HandOffCeilingTest {
    private static BenchServers servers;

    @BeforeAll
    static void startRedis() {
        servers = BenchServers.start(Topology.SINGLE, Optional.empty());
    }

    @AfterAll
    static void stopRedis() {
        servers.close();
    }

    /** Warm-up and measurement each end after however many hand-offs: the second goes on from the first. */
    @Test
    void handOffsOneAfterTheOtherAreCountedAndLeaveNothing() throws Exception {
        for (int run = 0; run < 5; run++) {
            double perSecond = HandOffCeiling.perSecond(servers.target(), Duration.ofMillis(37 + run),
                    Duration.ofMillis(100));
            assertThat(perSecond).isPositive();
        }

        RedisClient client = RedisClient.create(servers.target().uri());
        try (var connection = client.connect()) {
            assertThat(connection.sync().keys("*ceiling:*")).isEmpty();
        } finally {
            client.shutdown();
        }
    }

    @Test
    void theRowIsEachLibrarysShareOfTheCeiling() {
        ResultTable table = new ResultTable(java.util.List.of("Padlock", "Redisson"));
        Scenario turns = Bench.scenarios().stream().filter(s -> s.id().equals(Bench.HAND_OFF_SCENARIO)).findFirst()
                .orElseThrow();
        ScenarioResult padlock = new ScenarioResult(900.0, new long[] {1}, null, 1.0, 0, null);
        ScenarioResult redisson = new ScenarioResult(450.0, new long[] {1}, null, 4.0, 0, null);

        table.addCeiling(turns, Map.of("Padlock", padlock, "Redisson", redisson), 1_000);

        assertThat(table.rows()).singleElement().isEqualTo(new ResultTable.Row(
                "3b  one lock, 16 threads of one client", "share of the hand-off ceiling (1,000/s)", "0.90", "0.45",
                "2.00x"));
    }
}
