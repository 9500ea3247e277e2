package dev.padlock.spring.boot;

import dev.padlock.LockClient;
import dev.padlock.spring.boot.health.PadlockHealthCheck;
import dev.padlock.spring.boot.health.PadlockLeaseStats;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Padlock's health ({@code padlock}) on Spring Boot 4's health API: what {@link PadlockHealthCheck}
 * finds, UP when Redis answers a read of the client, DOWN when it does not or the client is closed.
 * Details: the client's id, whether the watchdog runs and how many leases it renews now, and the
 * leases lost and renewal calls failed since start (informative: a lost lease is an incident of one
 * lock, not of the service). On Boot 3 the same check serves through
 * {@code dev.padlock.spring.boot.boot3.PadlockBoot3HealthIndicator}.
 */
public final class PadlockHealthIndicator extends AbstractHealthIndicator {
    private final PadlockHealthCheck check;

    public PadlockHealthIndicator(LockClient client, PadlockLeaseStats stats) {
        super("Padlock health check failed");
        this.check = new PadlockHealthCheck(client, stats);
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        PadlockHealthCheck.Result result = check.check();
        (result.up() ? builder.up() : builder.down()).withDetails(result.details());
        if (result.error() != null) {
            builder.withException(result.error());
        }
    }
}
