package dev.padlock.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OwnerFieldsTest {
    private final OwnerFields fields = new OwnerFields("client");

    @Test
    void aFieldIsTheClientIdAndTheOwnerInRedissonsFormat() {
        assertThat(fields.of(42)).isEqualTo("client:42");
        assertThat(fields.of(-7)).isEqualTo("client:-7");
        assertThat(fields.of(Long.MAX_VALUE)).isEqualTo("client:" + Long.MAX_VALUE);
    }

    @Test
    void anOwnerAskingAgainGetsTheSameFieldSoManyHeldLocksKeepOne() {
        assertThat(fields.of(42)).isSameAs(fields.of(42));
    }

    @Test
    void ownersThatShareASlotEachGetTheirOwnField() {
        // 64 slots: 1 and 65 share one, as do 1 and a negative id with the same low bits
        for (int round = 0; round < 3; round++) {
            assertThat(fields.of(1)).isEqualTo("client:1");
            assertThat(fields.of(65)).isEqualTo("client:65");
            assertThat(fields.of(1 - 64L * 1000)).isEqualTo("client:" + (1 - 64L * 1000));
        }
    }
}
