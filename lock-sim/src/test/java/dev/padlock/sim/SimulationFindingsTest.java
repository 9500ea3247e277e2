package dev.padlock.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Episodes in which the simulator found a broken promise, replayed: each test is named for what
 * broke and fails while it breaks again (the trace is in the assertion's message).
 */
class SimulationFindingsTest {

    /**
     * Master seed 14, episode {@code -5797253042806403629:60}: an owner's second acquisition of a
     * plain lock, started while a hand-off went to its first, ran beside it; the first, cancelled
     * with its claim in doubt, gave the claim back and took the second's hold with it.
     */
    @Test
    void aHandOffsSuccessorIsItsOwnersAcquisitionUntilTheHandOffIsAnswered() {
        assertReplayKeepsEveryPromise(-5797253042806403629L, 60);
    }

    private static void assertReplayKeepsEveryPromise(long episodeSeed, int operations) {
        Simulation simulation = new Simulation(SimConfig.of(14, 0));
        Episode.Violation violation = simulation.replay(episodeSeed, operations);
        assertThat(violation).as(() -> violation == null ? ""
                : new Simulation.Finding(14, episodeSeed, operations, violation, 0).report()).isNull();
    }
}
