package dev.padlock.internal.base;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisURI;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Redis URIs: parsed as Lettuce does, printed without passwords. */
class RedisUrisTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "redis://:secret@host:6380/0 | redis://***@host:6380/0",
            "redis://user:secret@host:6380 | redis://***@host:6380",
            "rediss://user:p@ss@host:6380 | rediss://***@host:6380",
            "redis://host:6380 | redis://host:6380",
            "redis-sentinel://:pw@s1:26379,s2:26379#main | redis-sentinel://***@s1:26379,s2:26379#main"})
    void aPrintedUriHidesItsUserInfo(String uri, String printed) {
        assertThat(RedisUris.redact(uri)).isEqualTo(printed);
    }

    @Test
    void aParsedUriCarriesTheHandshakeTimeout() {
        RedisURI parsed = RedisUris.parse("redis://localhost:6390/2", Duration.ofMillis(750));

        assertThat(parsed.getHost()).isEqualTo("localhost");
        assertThat(parsed.getPort()).isEqualTo(6390);
        assertThat(parsed.getDatabase()).isEqualTo(2);
        assertThat(parsed.getTimeout()).isEqualTo(Duration.ofMillis(750));
    }

    @Test
    void aSentinelUriNamesItsMaster() {
        RedisURI parsed = RedisUris.parse("redis-sentinel://s1:26379,s2:26380#main", Duration.ofSeconds(1));

        assertThat(parsed.getSentinelMasterId()).isEqualTo("main");
        assertThat(parsed.getSentinels()).hasSize(2);
    }

    @ParameterizedTest
    @ValueSource(strings = {"redis://:secret@", "redis://:secret@host:port", "redis://:secret@ho st:1"})
    void aUriWithoutHostOrPortFailsWithoutShowingItsPassword(String uri) {
        assertThatThrownBy(() -> RedisUris.parse(uri, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("not a Redis URI: ")
                .hasMessageNotContaining("secret");
    }

    @Test
    void aUriLettuceCannotReadFailsWithTheExpectedForms() {
        assertThatThrownBy(() -> RedisUris.parse("http://host:1", Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expected redis://");
    }
}
