package dev.padlock.internal.grant;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.internal.protocol.GrantKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class GrantMessageTest {
    @Test
    void readsTheGrantsOfEachKind() {
        assertThat(GrantMessage.parse("7:41:orders:{42}")).isEqualTo(new GrantMessage(GrantKind.PLAIN, 7, 41, "orders:{42}"));
        assertThat(GrantMessage.parse("f:-3:9:fair:1")).isEqualTo(new GrantMessage(GrantKind.FAIR, -3, 9, "fair:1"));
        assertThat(GrantMessage.parse("r:12:5:rw:{a}:b")).isEqualTo(new GrantMessage(GrantKind.READ, 12, 5, "rw:{a}:b"));
    }

    @Test
    void malformedMessagesAreNull() {
        assertThat(GrantMessage.parse("0")).isNull();
        assertThat(GrantMessage.parse("x:1:name")).isNull();
        assertThat(GrantMessage.parse("f:1")).isNull();
        assertThat(GrantMessage.parse("1:y:name")).isNull();
    }

    @ParameterizedTest
    @CsvSource({"7:41:orders:{42}, 7, 41", "w:9:3:rw:x, 9, 3", "f:-3:9:fair:1, -3, 9"})
    void aGrantMessageCarriesOwnerAndNonce(String text, long owner, long nonce) {
        GrantMessage message = GrantMessage.parse(text);

        assertThat(message.owner()).isEqualTo(owner);
        assertThat(message.nonce()).isEqualTo(nonce);
    }

    @Test
    void aGrantMessageNameMayHoldColons() {
        assertThat(GrantMessage.parse("w:1:2:a:b:c").name()).isEqualTo("a:b:c");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "1", "1:2", "w:1:2", "q:1:2:name", "1:2:", "w:a:2:name", "w:1:b:name"})
    void malformedGrantMessagesAreIgnored(String text) {
        assertThat(GrantMessage.parse(text)).isNull();
    }
}
