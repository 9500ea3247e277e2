package dev.padlock.internal.base;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Argument checks: messages name the parameter and the bad value. */
class RequireTest {

    @Test
    void aFailedArgumentCheckFormatsItsMessage() {
        assertThatThrownBy(() -> Require.argument(false, "leaseTime must be positive, was %d", -3))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("leaseTime must be positive, was -3");
    }

    @Test
    void aMessageWithoutArgumentsIsNotFormatted() {
        assertThatThrownBy(() -> Require.argument(false, "100% wrong"))
                .hasMessage("100% wrong");
    }

    @Test
    void aPassedCheckThrowsNothing() {
        Require.argument(true, "never %s", "shown");
        Require.state(true, "never");
        Require.waitTime(0);
    }

    @Test
    void aFailedStateCheckIsAnIllegalState() {
        assertThatThrownBy(() -> Require.state(false, "the LockClient is closed"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("the LockClient is closed");
    }

    @Test
    void aLockNameIsNotNullNorEmpty() {
        assertThat(Require.lockName("orders:1")).isEqualTo("orders:1");
        assertThatThrownBy(() -> Require.lockName(null)).isInstanceOf(NullPointerException.class).hasMessage("name");
        assertThatThrownBy(() -> Require.lockName("")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("name must not be empty");
    }

    @Test
    void aLeaseAboveTheMaximumIsRefusedNamingTheMaximum() {
        Require.leaseTime(-1, java.util.concurrent.TimeUnit.DAYS); // the watchdog's
        Require.leaseTime(Require.MAX_LEASE_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
        Require.leaseTime(dev.padlock.RLock.MAX_LEASE);
        assertThatThrownBy(() -> Require.leaseTime(Require.MAX_LEASE_MILLIS + 1, java.util.concurrent.TimeUnit.MILLISECONDS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("leaseTime must be at most 36500 days (3153600000000 ms, RLock.MAX_LEASE), was 3153600000001"
                        + " MILLISECONDS");
        // TimeUnit.toMillis saturates at Long.MAX_VALUE: no overflow lets a huge lease through
        assertThatThrownBy(() -> Require.leaseTime(Long.MAX_VALUE, java.util.concurrent.TimeUnit.DAYS))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("36500 days");
        assertThatThrownBy(() -> Require.leaseTime(java.time.Duration.ofSeconds(Long.MAX_VALUE)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("36500 days");
        assertThatThrownBy(() -> Require.leaseTime(java.time.Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("negative");
        assertThatThrownBy(() -> Require.leaseTime(1, null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void aNegativeWaitTimeIsRefusedWithItsValue() {
        assertThatThrownBy(() -> Require.waitTime(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("waitTime must not be negative, was -1");
    }
}
