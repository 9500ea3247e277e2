package dev.padlock.spring.boot.boot3;

import dev.padlock.LockClient;
import dev.padlock.spring.boot.health.PadlockHealthCheck;
import dev.padlock.spring.boot.health.PadlockLeaseStats;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * Padlock's health ({@code padlock}) on Spring Boot 3's actuator: what {@link PadlockHealthCheck}
 * finds (UP when Redis answers a read of the client, DOWN when it does not or the client is closed;
 * the same details as on Boot 4).
 */
public final class PadlockBoot3HealthIndicator extends AbstractHealthIndicator {
    private final PadlockHealthCheck check;

    public PadlockBoot3HealthIndicator(LockClient client, PadlockLeaseStats stats) {
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
