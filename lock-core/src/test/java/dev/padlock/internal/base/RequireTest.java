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
                .hasMessage("leaseTime must be at most 2147483647 ms (about 24.8 days, RLock.MAX_LEASE), was 2147483648"
                        + " MILLISECONDS; for a longer hold, ask for no lease (0: the watchdog's, renewed while the client"
                        + " lives)");
        // TimeUnit.toMillis saturates at Long.MAX_VALUE: no overflow lets a huge lease through
        assertThatThrownBy(() -> Require.leaseTime(Long.MAX_VALUE, java.util.concurrent.TimeUnit.DAYS))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 2147483647 ms");
        assertThatThrownBy(() -> Require.leaseTime(java.time.Duration.ofSeconds(Long.MAX_VALUE)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 2147483647 ms");
        assertThatThrownBy(() -> Require.leaseTime(java.time.Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("negative");
        assertThatThrownBy(() -> Require.leaseTime(1, null)).isInstanceOf(NullPointerException.class);
    }

    /**
     * Issue 38: a lease is capped as every timeout is ({@code LockConfig.MAX_TIMEOUT},
     * {@code Integer.MAX_VALUE} ms, about 24.8 days); a 25-day lease used to pass (the cap was 100
     * years) although no watchdog timeout may be that long.
     */
    @Test
    void aLeaseAboveTheTimeoutCapOf24Point8DaysIsRefused() {
        assertThat(dev.padlock.RLock.MAX_LEASE).isEqualTo(dev.padlock.LockConfig.MAX_TIMEOUT);
        Require.leaseTime(24, java.util.concurrent.TimeUnit.DAYS);
        Require.leaseTime(java.time.Duration.ofMillis(Integer.MAX_VALUE));
        assertThatThrownBy(() -> Require.leaseTime(25, java.util.concurrent.TimeUnit.DAYS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 2147483647 ms (about 24.8 days, RLock.MAX_LEASE), was 25 DAYS");
        assertThatThrownBy(() -> Require.leaseTime(java.time.Duration.ofDays(25)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 2147483647 ms (about 24.8 days, RLock.MAX_LEASE), was PT600H");
    }

    /**
     * Issue 38: {@code acquire(Duration.ofSeconds(-5))} is refused while {@code lock(-5, SECONDS)} is
     * a watchdog lease (Redisson's reading); the message says how to ask for the watchdog's lease.
     */
    @Test
    void aNegativeDurationLeaseIsRefusedNamingDurationZeroForTheWatchdog() {
        Require.leaseTime(-5, java.util.concurrent.TimeUnit.SECONDS); // Redisson's reading: the watchdog's
        assertThatThrownBy(() -> Require.leaseTime(java.time.Duration.ofSeconds(-5)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("leaseTime must not be negative, was PT-5S; Duration.ZERO asks for the watchdog's lease"
                        + " (only RLock's lock(leaseTime, unit) and tryLock(wait, leaseTime, unit) read a negative lease as"
                        + " the watchdog's, as Redisson does)");
    }

    @Test
    void aNegativeWaitTimeIsRefusedWithItsValue() {
        assertThatThrownBy(() -> Require.waitTime(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("waitTime must not be negative, was -1");
    }
}
