package dev.padlock.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.internal.protocol.LockProtocol.Attempt;
import dev.padlock.internal.protocol.LockProtocol.Release;
import dev.padlock.internal.protocol.LockProtocol.ReleaseOutcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** How the engine reads the scripts' replies (the replies themselves: ScriptRepliesTest, on Redis). */
class ScriptReplyReadingTest {

    @Test
    void aNilTtlReplyIsAnAcquisitionWithoutToken() {
        Attempt attempt = Attempt.fromTtl(null);

        assertThat(attempt.acquired()).isTrue();
        assertThat(attempt.token()).isEqualTo(Attempt.NO_TOKEN);
        assertThat(attempt.refusal()).isNull();
    }

    @ParameterizedTest
    @ValueSource(longs = {-1, 0, 1, 29_999, Long.MAX_VALUE})
    void aTtlReplyIsARefusalToWaitAtMostThatLong(long ttl) {
        Attempt attempt = Attempt.fromTtl(ttl);

        assertThat(attempt.acquired()).isFalse();
        assertThat(attempt.ttl()).isEqualTo(ttl);
        assertThat(attempt.refusal()).as("waiting can help").isNull();
    }

    @Test
    void aRefusedAttemptSaysWhyAndHasNoTtlToWaitFor() {
        Attempt attempt = Attempt.refused("a reader cannot take the write lock");

        assertThat(attempt.acquired()).isFalse();
        assertThat(attempt.ttl()).isEqualTo(-1);
        assertThat(attempt.refusal()).isEqualTo("a reader cannot take the write lock");
    }

    @Test
    void aReleaseReplyOfNilChangedNothing() {
        assertThat(Release.fromScript(null)).isEqualTo(new Release(ReleaseOutcome.NOT_HELD, 0, false));
    }

    @Test
    void aReleaseReplyOfZeroKeptOtherHolds() {
        assertThat(Release.fromScript(0L)).isEqualTo(new Release(ReleaseOutcome.STILL_HELD, 0, false));
    }

    @ParameterizedTest
    @CsvSource({"1, 0", "2, 1", "11, 10"})
    void aReleaseReplyAboveZeroCountsTheSubscribersItsMessageReached(long reply, long listeners) {
        assertThat(Release.fromScript(reply)).isEqualTo(new Release(ReleaseOutcome.RELEASED, listeners, false));
    }

    @Test
    void aNegativeReleaseReplyGrantedTheLockToAnotherClientInLine() {
        Release release = Release.fromScript(-1L);

        assertThat(release.outcome()).isEqualTo(ReleaseOutcome.RELEASED);
        assertThat(release.granted()).isTrue();
        assertThat(release.listeners()).isZero();
    }

    @Test
    void aReleaseReplyOfMinusTwoGrantedTheLockThoughRedisRefusedAMessage() {
        assertThat(Release.fromScript(-2L)).isEqualTo(new Release(ReleaseOutcome.RELEASED, 0, true, true));
    }

    @Test
    void aReleaseReplyOfMinusThreeReleasedTheLockThoughRedisRefusedItsMessage() {
        assertThat(Release.fromScript(-3L)).isEqualTo(new Release(ReleaseOutcome.RELEASED, 0, false, true));
    }
}
