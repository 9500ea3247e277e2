package dev.padlock.spi;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Test;

class LockKeysTest {

    @Test
    void unlockChannelWrapsTheNameInAHashTag() {
        assertThat(LockKeys.unlockChannel("orders:42")).isEqualTo("redisson_lock__channel:{orders:42}");
    }

    @Test
    void unlockChannelOfANameWithABraceIsNotWrappedAgain() {
        assertThat(LockKeys.unlockChannel("{orders}:42")).isEqualTo("redisson_lock__channel:{orders}:42");
        assertThat(LockKeys.unlockChannel("a{b")).isEqualTo("redisson_lock__channel:a{b");
    }

    @Test
    void unlockChannelIsInTheSlotOfTheLockKey() {
        // what the hash tag is for: one Cluster slot for the key and its channel
        assertThat(SlotHash.getSlot(LockKeys.unlockChannel("orders:42"))).isEqualTo(SlotHash.getSlot("orders:42"));
        assertThat(SlotHash.getSlot(LockKeys.unlockChannel("{orders}:42"))).isEqualTo(SlotHash.getSlot("{orders}:42"));
    }

    @Test
    void suffixedFollowsTheSameRuleForOtherPrefixes() {
        assertThat(LockKeys.suffixed("redisson_lock_token", "orders:42")).isEqualTo("redisson_lock_token:{orders:42}");
        assertThat(LockKeys.suffixed("redisson_lock_token", "{orders}:42")).isEqualTo("redisson_lock_token:{orders}:42");
    }

    @Test
    void ownerFieldIsClientIdColonThreadId() {
        String clientId = "3f2b8c1e-5a6d-4e7f-9a0b-1c2d3e4f5a6b";

        assertThat(LockKeys.ownerField(clientId, 17L)).isEqualTo(clientId + ":17");
        assertThat(LockKeys.ownerField(clientId, Long.MAX_VALUE)).isEqualTo(clientId + ":9223372036854775807");
    }

    @Test
    void unlockMessagesAreRedissons() {
        assertThat(LockKeys.UNLOCK_MESSAGE).isEqualTo("0");
        assertThat(LockKeys.READ_UNLOCK_MESSAGE).isEqualTo("1");
    }
}
