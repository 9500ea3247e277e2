package dev.padlock.internal.grant;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.internal.acquire.HeldBefore;
import dev.padlock.internal.protocol.GrantKind;
import org.junit.jupiter.api.Test;

/** The holds counted per owner of the granting kinds: what names an acquisition in doubt. */
class HeldCountsTest {
    private final HeldCounts counts = new HeldCounts();
    private final HeldCounts.Key owner = new HeldCounts.Key("orders", 'f', 1);

    @Test
    void holdsCountUpAndAReleaseThatLeavesHoldsCountsOneOff() {
        counts.held(owner, 0, 1_000);
        counts.held(owner, 0, 1_000);
        counts.releaseSent(owner);
        assertThat(counts.heldBefore(owner, 0)).as("a release in flight could move it").isEqualTo(HeldBefore.NOT_YET);

        counts.releaseAnswered(owner, true);

        assertThat(counts.heldBefore(owner, 0)).isEqualTo(1);
    }

    @Test
    void aFixedLeaseThatRanOutCountsNothing() {
        counts.held(owner, 0, 1_000);

        assertThat(counts.heldBefore(owner, 1_000)).isZero();
    }

    /**
     * Simulator seed 505: a write re-entry adds its lease to what the TTL had left, but the count
     * took the later of the two ends. The give-back of an unlock in doubt, asked once that shorter
     * end had passed, counted no hold left and released the one the owner kept, still within its TTL.
     */
    @Test
    void aWriteReentryAddsItsLeaseToWhatTheTtlHadLeft() {
        HeldCounts.Key writer = new HeldCounts.Key("orders", GrantKind.WRITE, 1);
        counts.held(writer, 0, 500);
        counts.held(writer, 300, 300 + 1_500);

        assertThat(counts.heldBefore(writer, 1_900)).as("the TTL runs to 500 + 1 500").isEqualTo(2);
        assertThat(counts.heldBefore(writer, 2_000)).isZero();
    }

    /** As the watchdog's (simulator seed 21): a force unlock ends only the holds told before it was sent. */
    @Test
    void aForceUnlockKeepsTheCountOfAHoldToldAfterItWasSent() {
        counts.held(owner, 10, Long.MAX_VALUE);

        counts.forceReleased("orders", 5);
        assertThat(counts.heldBefore(owner, 30)).isOne();
        counts.forceReleased("orders", 20);
        assertThat(counts.heldBefore(owner, 30)).isZero();
    }

    /**
     * Simulator seed 22 (a write lock): a hold's fixed lease ran out without an unlock, and the
     * owner's next acquisition, with a watchdog lease, brought it back into the count. The owner's
     * unlocks then always left one hold counted, so the count nobody was told of that Redis kept
     * was renewed for ever. Holds whose lease ran out stay gone.
     */
    @Test
    void aHoldWhoseFixedLeaseRanOutIsNotBroughtBackByTheNextAcquisition() {
        counts.held(owner, 0, 1_000);

        counts.held(owner, 2_000, Long.MAX_VALUE);

        assertThat(counts.heldBefore(owner, 3_000)).isOne();
        counts.releaseSent(owner);
        counts.releaseAnswered(owner, true);
        assertThat(counts.none(owner, 3_000)).isTrue();
    }

    @Test
    void anotherAcquisitionOfTheOwnerInFlightMakesTheCountUnknown() {
        counts.held(owner, 0, Long.MAX_VALUE);
        counts.acquiring(owner);
        counts.acquiring(owner);

        assertThat(counts.heldBefore(owner, 0)).isEqualTo(HeldBefore.UNKNOWN);
    }

    @Test
    void ownersWhoseFixedLeasesRanOutWithoutAnUnlockDoNotPileUp() {
        for (int i = 0; i < 3 * HeldCounts.SWEEP_ABOVE; i++) {
            counts.held(new HeldCounts.Key("lock-" + i, 'f', 1), i * 10L, i * 10L + 5);
        }

        assertThat(counts.size()).isLessThanOrEqualTo(HeldCounts.SWEEP_ABOVE + 1);
    }
}
