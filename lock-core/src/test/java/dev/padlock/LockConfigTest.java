package dev.padlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LockConfigTest {

    @Nested
    class Defaults {
        @Test
        void watchdogTimeoutIsThirtySeconds() {
            LockConfig config = LockConfig.builder().redisUri("redis://127.0.0.1:6379").build();

            assertThat(config.watchdogTimeout()).isEqualTo(Duration.ofSeconds(30));
            assertThat(LockConfig.DEFAULT_WATCHDOG_TIMEOUT).isEqualTo(Duration.ofSeconds(30));
        }

        @Test
        void commandTimeoutIsThreeSeconds() {
            LockConfig config = LockConfig.builder().redisUri("redis://127.0.0.1:6379").build();

            assertThat(config.commandTimeout()).isEqualTo(Duration.ofSeconds(3));
            assertThat(LockConfig.DEFAULT_COMMAND_TIMEOUT).isEqualTo(Duration.ofSeconds(3));
        }

        @Test
        void noListenerAndNoClusterUnlessGiven() {
            LockConfig config = LockConfig.builder().redisUri("redis://127.0.0.1:6379").build();

            assertThat(config.leaseLostListener()).isEmpty();
            assertThat(config.clusterUris()).isEmpty();
            assertThat(config.redisUri()).contains("redis://127.0.0.1:6379");
        }
    }

    @Nested
    class Scripting {
        @Test
        void evalUnlessFunctionsAreAskedForAndOnlyFunctionsShowInToString() {
            LockConfig eval = LockConfig.builder().redisUri("redis://127.0.0.1:6379").build();
            LockConfig functions = LockConfig.builder().redisUri("redis://127.0.0.1:6379")
                    .scripting(LockConfig.Scripting.FUNCTIONS).build();

            assertThat(eval.scripting()).isEqualTo(LockConfig.Scripting.EVAL);
            assertThat(eval.toString()).doesNotContain("scripting");
            assertThat(functions.scripting()).isEqualTo(LockConfig.Scripting.FUNCTIONS);
            assertThat(functions.toString()).contains("scripting=FUNCTIONS");
        }

        @Test
        void nullIsRefusedNamingTheParameter() {
            assertThatThrownBy(() -> LockConfig.builder().scripting(null))
                    .isInstanceOf(NullPointerException.class).hasMessage("scripting");
        }
    }

    @Nested
    class Topology {
        @Test
        void bothRedisUriAndClusterUrisFailAtBuild() {
            LockConfig.Builder builder = LockConfig.builder()
                    .redisUri("redis://127.0.0.1:6379")
                    .clusterUris("redis://10.0.0.1:7000", "redis://10.0.0.2:7000");

            assertThatThrownBy(builder::build).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("redisUri").hasMessageContaining("clusterUris");
        }

        @Test
        void bothGivenInTheOtherOrderAlsoFailAtBuild() {
            LockConfig.Builder builder = LockConfig.builder()
                    .clusterUris("redis://10.0.0.1:7000")
                    .redisUri("redis://127.0.0.1:6379");

            assertThatThrownBy(builder::build).isInstanceOf(IllegalArgumentException.class);
        }

        @Test
        void neitherFailsAtBuild() {
            assertThatThrownBy(() -> LockConfig.builder().build()).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("redisUri").hasMessageContaining("clusterUris");
        }

        @Test
        void clusterUrisAreKeptInOrder() {
            LockConfig config = LockConfig.builder()
                    .clusterUris("redis://10.0.0.1:7000", "redis://10.0.0.2:7000").build();

            assertThat(config.clusterUris()).containsExactly("redis://10.0.0.1:7000", "redis://10.0.0.2:7000");
            assertThat(config.redisUri()).isEmpty();
        }

        @Test
        void clusterUrisAreACopyOfTheCallersArray() {
            String[] seeds = {"redis://10.0.0.1:7000"};
            LockConfig config = LockConfig.builder().clusterUris(seeds).build();

            seeds[0] = "redis://evil:1";

            assertThat(config.clusterUris()).containsExactly("redis://10.0.0.1:7000");
            assertThatThrownBy(() -> config.clusterUris().add("redis://x:1"))
                    .isInstanceOf(UnsupportedOperationException.class);
        }

        @Test
        void clusterUrisWithoutSeedsIsRejected() {
            assertThatThrownBy(() -> LockConfig.builder().clusterUris())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("clusterUris");
        }
    }

    @Nested
    class NullArguments {
        @Test
        void redisUri() {
            assertThatThrownBy(() -> LockConfig.builder().redisUri(null))
                    .isInstanceOf(NullPointerException.class).hasMessage("uri");
        }

        @Test
        void clusterUrisArray() {
            assertThatThrownBy(() -> LockConfig.builder().clusterUris((String[]) null))
                    .isInstanceOf(NullPointerException.class).hasMessage("uris");
        }

        @Test
        void clusterUrisElement() {
            assertThatThrownBy(() -> LockConfig.builder().clusterUris("redis://10.0.0.1:7000", null))
                    .isInstanceOf(NullPointerException.class).hasMessageContaining("clusterUris");
        }

        @Test
        void watchdogTimeout() {
            assertThatThrownBy(() -> LockConfig.builder().watchdogTimeout(null))
                    .isInstanceOf(NullPointerException.class).hasMessage("timeout");
        }

        @Test
        void commandTimeout() {
            assertThatThrownBy(() -> LockConfig.builder().commandTimeout(null))
                    .isInstanceOf(NullPointerException.class).hasMessage("timeout");
        }

        @Test
        void leaseLostListener() {
            assertThatThrownBy(() -> LockConfig.builder().leaseLostListener(null))
                    .isInstanceOf(NullPointerException.class).hasMessage("listener");
        }
    }

    @Nested
    class BlankUris {
        @ParameterizedTest
        @ValueSource(strings = {"", " ", "\t\n"})
        void redisUri(String blank) {
            assertThatThrownBy(() -> LockConfig.builder().redisUri(blank))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("redisUri");
        }

        @ParameterizedTest
        @ValueSource(strings = {"", " ", "\t\n"})
        void clusterUri(String blank) {
            assertThatThrownBy(() -> LockConfig.builder().clusterUris("redis://10.0.0.1:7000", blank))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("clusterUris");
        }
    }

    @Nested
    class WatchdogTimeout {
        @Test
        void thirtyMillisecondsIsTheMinimum() {
            LockConfig config = LockConfig.builder().redisUri("redis://h:6379")
                    .watchdogTimeout(Duration.ofMillis(30)).build();

            assertThat(config.watchdogTimeout()).isEqualTo(Duration.ofMillis(30));
        }

        @ParameterizedTest
        @ValueSource(longs = {29, 1, 0, -1, -30_000})
        void belowThirtyMillisecondsIsRejected(long millis) {
            assertThatThrownBy(() -> LockConfig.builder().watchdogTimeout(Duration.ofMillis(millis)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("watchdogTimeout").hasMessageContaining("30 ms");
        }

        @Test
        void justUnderThirtyMillisecondsIsRejected() {
            assertThatThrownBy(() -> LockConfig.builder().watchdogTimeout(Duration.ofNanos(29_999_999)))
                    .isInstanceOf(IllegalArgumentException.class);
        }

        @Test
        void theMessageGivesTheBadValue() {
            assertThatThrownBy(() -> LockConfig.builder().watchdogTimeout(Duration.ofMillis(10)))
                    .hasMessageContaining(Duration.ofMillis(10).toString());
        }

        @Test
        void hugeDurationGivesIllegalArgumentExceptionOrIsAccepted() {
            Duration huge = Duration.ofSeconds(Long.MAX_VALUE);

            Throwable thrown = catchAny(() -> LockConfig.builder().watchdogTimeout(huge));

            assertThat(thrown).satisfiesAnyOf(
                    t -> assertThat(t).isNull(),
                    t -> assertThat(t).isInstanceOf(IllegalArgumentException.class));
        }
    }

    @Nested
    class CommandTimeout {
        @Test
        void oneMillisecondIsAccepted() {
            LockConfig config = LockConfig.builder().redisUri("redis://h:6379")
                    .commandTimeout(Duration.ofMillis(1)).build();

            assertThat(config.commandTimeout()).isEqualTo(Duration.ofMillis(1));
        }

        @ParameterizedTest
        @ValueSource(longs = {0, -1, -3_000})
        void nonPositiveIsRejected(long millis) {
            assertThatThrownBy(() -> LockConfig.builder().commandTimeout(Duration.ofMillis(millis)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("commandTimeout");
        }

        @Test
        void hugeDurationGivesIllegalArgumentExceptionOrIsAccepted() {
            Duration huge = Duration.ofSeconds(Long.MAX_VALUE);

            Throwable thrown = catchAny(() -> LockConfig.builder().commandTimeout(huge));

            assertThat(thrown).satisfiesAnyOf(
                    t -> assertThat(t).isNull(),
                    t -> assertThat(t).isInstanceOf(IllegalArgumentException.class));
        }
    }

    @Nested
    class ToStringHidesPasswords {
        @Test
        void passwordOnly() {
            LockConfig config = LockConfig.builder().redisUri("redis://:secret@host:6379").build();

            assertThat(config.toString()).doesNotContain("secret").contains("host:6379");
        }

        @Test
        void userAndPassword() {
            LockConfig config = LockConfig.builder().redisUri("rediss://alice:secret@host:6380/2").build();

            assertThat(config.toString()).doesNotContain("secret").contains("host:6380");
        }

        @Test
        void sentinel() {
            LockConfig config = LockConfig.builder()
                    .redisUri("redis-sentinel://:secret@s1:26379,s2:26379#mymaster").build();

            assertThat(config.toString()).doesNotContain("secret").contains("s1:26379");
        }

        @Test
        void cluster() {
            LockConfig config = LockConfig.builder()
                    .clusterUris("redis://:secret@10.0.0.1:7000", "redis://:secret@10.0.0.2:7000").build();

            assertThat(config.toString()).doesNotContain("secret");
        }

        @Test
        void showsTheTimeouts() {
            LockConfig config = LockConfig.builder().redisUri("redis://h:6379")
                    .watchdogTimeout(Duration.ofSeconds(7)).commandTimeout(Duration.ofMillis(250)).build();

            assertThat(config.toString()).contains("PT7S").contains("PT0.25S");
        }

        @Test
        void passwordContainingAnAtSign() {
            LockConfig config = LockConfig.builder().redisUri("redis://:p@ss@host:6379").build();

            assertThat(config.toString()).doesNotContain("ss@host");
        }
    }

    private static Throwable catchAny(Runnable action) {
        try {
            action.run();
            return null;
        } catch (Throwable t) {
            return t;
        }
    }

    @Test
    void builtConfigIsNotChangedByLaterBuilderCalls() {
        LockConfig.Builder builder = LockConfig.builder().redisUri("redis://h:6379");
        LockConfig config = builder.build();

        builder.commandTimeout(Duration.ofSeconds(9)).watchdogTimeout(Duration.ofSeconds(9));

        assertThat(config.commandTimeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(config.watchdogTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThatNoException().isThrownBy(builder::build);
    }
}
