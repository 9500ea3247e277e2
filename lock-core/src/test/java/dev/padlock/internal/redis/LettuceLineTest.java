package dev.padlock.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import org.junit.jupiter.api.Test;

/** Which Lettuce and Netty pairs Padlock accepts: each Spring Boot line's own, never a mismatch. */
class LettuceLineTest {

    @Test
    void bootThreeFivesOwnPairIsAccepted() {
        assertThat(LettuceLine.problem("6.6.0.RELEASE/643bd47", false, "4.1.128.Final")).isNull();
    }

    @Test
    void bootFoursOwnPairIsAccepted() {
        assertThat(LettuceLine.problem("7.7.0.RELEASE/abc1234", true, "4.2.16.Final")).isNull();
    }

    @Test
    void lettuceSixOnNettyFourTwoIsAccepted() {
        assertThat(LettuceLine.problem("6.6.0.RELEASE", true, "4.2.16.Final")).isNull();
    }

    @Test
    void lettuceSevenOnNettyFourOneNamesBothVersionsAndTheFix() {
        assertThat(LettuceLine.problem("7.7.0.RELEASE/abc1234", false, "4.1.128.Final"))
                .contains("Lettuce 7.7.0.RELEASE runs on Netty 4.2")
                .contains("Netty 4.1.128.Final")
                .contains("Spring Boot 3.5: Lettuce 6.6 on Netty 4.1")
                .doesNotContain("abc1234");
    }

    @Test
    void lettuceOlderThanSixSixIsRefused() {
        assertThat(LettuceLine.problem("5.3.7.RELEASE", false, "4.1.128.Final"))
                .startsWith("Padlock needs Lettuce 6.6 or later, but the class path has Lettuce 5.3.7.RELEASE");
        assertThat(LettuceLine.problem("6.4.2.RELEASE/abc", false, "4.1.118.Final"))
                .startsWith("Padlock needs Lettuce 6.6 or later, but the class path has Lettuce 6.4.2.RELEASE:");
        assertThat(LettuceLine.problem("6.7.1.RELEASE", false, "4.1.128.Final")).isNull();
    }

    @Test
    void anUnknownVersionIsLetBe() {
        assertThat(LettuceLine.problem(null, false, "4.1.128.Final")).isNull();
        assertThat(LettuceLine.problem("unknown", false, "4.1.128.Final")).isNull();
    }

    @Test
    void theClassPathsOwnPairPasses() {
        // whichever line this build compiles and runs on (-Dlettuce.version, -Dnetty.version)
        assertThatCode(LettuceLine::check).doesNotThrowAnyException();
    }
}
