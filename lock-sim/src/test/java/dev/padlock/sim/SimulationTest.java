package dev.padlock.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The simulator in CI: 1,000,000 simulated events of the real engine and the real scripts on the
 * model Redis, across episode seeds drawn from a fixed master seed, with every fault of
 * {@link Episode} on; any broken promise fails it (see {@link KnownDefect}). {@code -Dpadlock.sim.steps=N} runs longer (nights),
 * {@code -Dpadlock.sim.seed=S} from another master seed, {@code -Dpadlock.sim.replay=SEED:OPS} one
 * episode again (a finding's report prints it).
 */
class SimulationTest {

    @Test
    void everyPromiseHoldsAcrossSimulatedRunsWithFaults() throws java.io.IOException {
        long steps = Long.getLong("padlock.sim.steps", 1_000_000);
        long seed = Long.getLong("padlock.sim.seed", 25);
        Simulation simulation = new Simulation(SimConfig.of(seed, steps));
        String replay = System.getProperty("padlock.sim.replay");
        Simulation.Finding finding;
        if (replay != null && !replay.isBlank()) {
            String[] parts = replay.split(":");
            long episodeSeed = Long.parseLong(parts[0]);
            int operations = Integer.parseInt(parts[1]);
            Episode.Violation violation = simulation.replay(episodeSeed, operations);
            finding = violation == null ? null : new Simulation.Finding(seed, episodeSeed, operations, violation, 0);
        } else {
            finding = simulation.run();
        }
        System.out.printf("simulation: %d events in %d episodes, master seed %d; held: %s, %s; known defects seen: %s%n",
                simulation.steps(), simulation.episodes(), seed, simulation.held(), simulation.permitsHeld(),
                simulation.known());
        if (finding != null) {
            // the whole trace, for a reader: the assertion's message holds it too
            java.nio.file.Files.writeString(java.nio.file.Path.of("target", "simulation-finding.txt"), finding.report());
        }
        assertThat(finding).as(() -> finding == null ? "" : finding.report()).isNull();
        if (replay == null) {
            assertThat(simulation.steps()).isGreaterThanOrEqualTo(steps);
        }
    }
}
