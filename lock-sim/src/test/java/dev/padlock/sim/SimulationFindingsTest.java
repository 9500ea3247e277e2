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

    /**
     * Master seed 25, episode {@code 2130685250551206037:60}: a multi lock held twice by one call
     * (issue 41); the unlock of one hold could not be confirmed and did not land, and the give-back
     * of that hold compared Redis's count with the owner's holds as they were at the unlock. The
     * last unlock, sent meanwhile, had made them one fewer: nothing was given back, and a hold
     * nobody counted was renewed for ever.
     */
    @Test
    void aMultiLockReleaseInDoubtIsGivenBackAgainstTheOwnersHoldsWhenRedisAnswers() {
        assertReplayKeepsEveryPromise(2130685250551206037L, 60);
    }

    /**
     * Master seed 25, episode {@code -5475809824476494461:60}: a multi lock held by one call and
     * re-entered one by one, whose holds the components' views then counted as their own; an unlock
     * in doubt gave back against the views' count alone and took a hold the owner was told of.
     */
    @Test
    void aMultiLockHeldByOneCallIsReenteredAndReleasedOnlyByOneCall() {
        assertReplayKeepsEveryPromise(-5475809824476494461L, 60);
    }

    /**
     * Master seed 5, episode {@code -3138099000974939634:60}: a grant of a plain lock to a place its
     * owner had left was claimed by the owner's multi lock in one call (the claim found the granted
     * field); the grant's message, read after, was passed on by releasing that field.
     */
    @Test
    void aLateGrantFoundByAMultiLocksOneCallIsNotPassedOn() {
        assertReplayKeepsEveryPromise(-3138099000974939634L, 60);
    }

    /**
     * Master seed 5, episode {@code 5550643089867640329:60}: the fair component of a multi lock, under
     * a stalled server. The wait's caller gave up at its bound with an attempt unanswered; a grant
     * to its place came, so it held and released again, and that attempt had taken the place again
     * at the tail. Not noted as a wait that held by a grant (its caller was not told), the later
     * grant to that place held the lock for nobody under the owner's next acquisition, which
     * re-entered on it: a hold renewed for ever.
     */
    @Test
    void aSecondGrantToAPlaceWhoseCancelledWaitHeldByAGrantIsGivenBack() {
        assertReplayKeepsEveryPromise(5550643089867640329L, 60);
    }

    private static void assertReplayKeepsEveryPromise(long episodeSeed, int operations) {
        Simulation simulation = new Simulation(SimConfig.of(14, 0));
        Episode.Violation violation = simulation.replay(episodeSeed, operations);
        assertThat(violation).as(() -> violation == null ? ""
                : new Simulation.Finding(14, episodeSeed, operations, violation, 0).report()).isNull();
    }
}
