package dev.padlock.internal.acquire;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The grant latch's states: RUNNING, GRANTED by a message, DONE once the loop is over. */
class GrantLatchTest {
    private final GrantLatch latch = new GrantLatch();

    @Test
    void aGrantWhileTheLoopRunsIsTakenOnce() {
        assertThat(latch.grant()).isTrue();
        assertThat(latch.grant()).isFalse();
        assertThat(latch.isGranted()).isTrue();
        assertThat(latch.wakes()).as("a wait about to start ends at once").isTrue();
    }

    @Test
    void aHoldAfterAGrantSaysItCameByTheGrant() {
        latch.grant();

        assertThat(latch.held()).isTrue();
        assertThat(latch.granted()).isTrue();
        assertThat(latch.isGranted()).as("taken").isFalse();
    }

    @Test
    void aHoldByAnAttemptsReplyDidNotComeByAGrantAndLaterGrantsAreNotTaken() {
        assertThat(latch.held()).isFalse();

        assertThat(latch.granted()).isFalse();
        assertThat(latch.grant()).isFalse();
    }

    @Test
    void aStopTurnsRoundWhenAGrantCameFirst() {
        latch.grant();

        assertThat(latch.stop()).isFalse();
        assertThat(latch.isGranted()).isTrue();
    }

    @Test
    void aStopWithoutAGrantEndsTheLatchAndLaterGrantsAreNotTaken() {
        assertThat(latch.stop()).isTrue();
        assertThat(latch.stop()).as("stopping again").isTrue();

        assertThat(latch.grant()).isFalse();
    }

    @Test
    void aLatchEndedBeforeTheLoopBeganTakesNoGrant() {
        latch.end();

        assertThat(latch.grant()).isFalse();
        assertThat(latch.requestWake()).as("the loop does not run").isFalse();
    }

    @Test
    void aWakeRequestLastsUntilTheNextAttempt() {
        assertThat(latch.requestWake()).isTrue();
        assertThat(latch.wakes()).isTrue();
        assertThat(latch.isGranted()).as("a wake-up is not a hold").isFalse();

        latch.attempting();

        assertThat(latch.wakeRequested()).isFalse();
        assertThat(latch.wakes()).isFalse();
    }
}
