package dev.padlock.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class GrantMessageTest {
    @Test
    void readsTheGrantsOfEachKind() {
        assertThat(GrantMessage.parse("7:41:orders:{42}")).isEqualTo(new GrantMessage(GrantMessage.PLAIN, 7, 41, "orders:{42}"));
        assertThat(GrantMessage.parse("f:-3:9:fair:1")).isEqualTo(new GrantMessage(GrantMessage.FAIR, -3, 9, "fair:1"));
        assertThat(GrantMessage.parse("r:12:5:rw:{a}:b")).isEqualTo(new GrantMessage(GrantMessage.READ, 12, 5, "rw:{a}:b"));
    }

    @Test
    void malformedMessagesAreNull() {
        assertThat(GrantMessage.parse("0")).isNull();
        assertThat(GrantMessage.parse("x:1:name")).isNull();
        assertThat(GrantMessage.parse("f:1")).isNull();
        assertThat(GrantMessage.parse("1:y:name")).isNull();
    }
}
