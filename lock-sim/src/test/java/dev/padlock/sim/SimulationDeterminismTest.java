package dev.padlock.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A seed repeats its run exactly: the same events in the same order at the same virtual times, so
 * that a finding's seed replays it. Anything in the engine that depends on identity hashes,
 * the system clock, a thread or an unseeded random breaks this.
 */
class SimulationDeterminismTest {

    @Test
    void anEpisodeRunTwiceFromOneSeedLogsTheSameTrace() {
        SimConfig config = SimConfig.of(7, 0);
        for (long seed = 1; seed <= 3; seed++) {
            Episode first = new Episode(config, seed);
            first.run(6_000);
            Episode second = new Episode(config, seed);
            second.run(6_000);
            assertThat(second.world.steps()).as("events of seed %d", seed).isEqualTo(first.world.steps());
            assertThat(second.fingerprint()).as("trace of seed %d", seed).isEqualTo(first.fingerprint());
        }
    }
}
