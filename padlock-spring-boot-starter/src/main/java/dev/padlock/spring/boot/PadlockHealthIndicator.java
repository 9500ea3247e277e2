package dev.padlock.spring.boot;

import dev.padlock.LockClient;
import dev.padlock.spi.PadlockInfo;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Padlock's health ({@code padlock}): UP when Redis answers a read of the client, DOWN when it does
 * not or the client is closed. Details: the client's id, whether the watchdog runs and how many
 * leases it renews now, and the leases lost and renewal calls failed since start (informative:
 * a lost lease is an incident of one lock, not of the service).
 */
public final class PadlockHealthIndicator extends AbstractHealthIndicator {
    /** A name no lock uses; reading it costs one round trip and changes nothing. */
    static final String PROBE = "padlock:health-probe";

    private final LockClient client;
    private final PadlockLeaseStats stats;

    public PadlockHealthIndicator(LockClient client, PadlockLeaseStats stats) {
        super("Padlock health check failed");
        this.client = client;
        this.stats = stats;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.withDetail("clientId", client.getId())
                .withDetail("leasesLostSinceStart", stats.leasesLost())
                .withDetail("renewalErrorsSinceStart", stats.renewalErrors());
        try {
            client.getLock(PROBE).isLocked();
        } catch (IllegalStateException closed) {
            builder.down().withDetail("redis", "client closed").withDetail("watchdog", "stopped");
            return;
        } catch (RuntimeException unreachable) {
            builder.down(unreachable).withDetail("redis", "unreachable").withDetail("watchdog", "running");
            return;
        }
        builder.up().withDetail("redis", "reachable").withDetail("watchdog", "running");
        PadlockInfo.renewedLeases(client).ifPresent(renewed -> builder.withDetail("renewedLeases", renewed));
    }
}
