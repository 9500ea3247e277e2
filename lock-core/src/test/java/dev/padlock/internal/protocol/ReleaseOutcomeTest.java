package dev.padlock.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.internal.protocol.LockProtocol.ReleaseOutcome;
import org.junit.jupiter.api.Test;

/** The reply of {@code lock_release.lua}: nil, 0 or 1. */
class ReleaseOutcomeTest {

    @Test
    void nilMeansNotHeld() {
        assertThat(ReleaseOutcome.fromScript(null)).isEqualTo(ReleaseOutcome.NOT_HELD);
    }

    @Test
    void zeroMeansStillHeld() {
        assertThat(ReleaseOutcome.fromScript(0L)).isEqualTo(ReleaseOutcome.STILL_HELD);
    }

    @Test
    void oneMeansReleased() {
        assertThat(ReleaseOutcome.fromScript(1L)).isEqualTo(ReleaseOutcome.RELEASED);
    }

    @Test
    void boxedZeroOutsideTheLongCacheIsStillHeld() {
        // a reply decoded into a fresh Long must compare by value, not identity
        @SuppressWarnings({"deprecation", "removal"})
        Long zero = new Long(0L);

        assertThat(ReleaseOutcome.fromScript(zero)).isEqualTo(ReleaseOutcome.STILL_HELD);
    }
}
