package dev.padlock.spring.boot.health;

import static java.util.Objects.requireNonNull;

import dev.padlock.LockClient;
import dev.padlock.spi.PadlockInfo;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Padlock's health, without any Spring Boot type, so that both lines' {@code padlock} indicators
 * share it: UP when Redis answers a read of the client, DOWN when it does not (within the client's
 * command timeout) or the client is closed. Details: the client's id, whether the watchdog runs
 * and how many leases it renews now, and the leases lost and renewal calls failed since start
 * (informative: a lost lease is an incident of one lock, not of the service). Thread-safe; each
 * {@link #check()} costs one round trip.
 */
public final class PadlockHealthCheck {
    /** A name no lock uses; reading it costs one round trip and changes nothing. */
    public static final String PROBE = "padlock:health-probe";

    private final LockClient client;
    private final PadlockLeaseStats stats;

    public PadlockHealthCheck(LockClient client, PadlockLeaseStats stats) {
        this.client = requireNonNull(client, "client");
        this.stats = requireNonNull(stats, "stats");
    }

    /** Asks Redis once; never throws. */
    public Result check() {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("clientId", client.getId());
        details.put("leasesLostSinceStart", stats.leasesLost());
        details.put("renewalErrorsSinceStart", stats.renewalErrors());
        try {
            client.getLock(PROBE).isLocked();
        } catch (IllegalStateException closed) {
            details.put("redis", "client closed");
            details.put("watchdog", "stopped");
            return new Result(false, details, null);
        } catch (RuntimeException unreachable) {
            details.put("redis", "unreachable");
            details.put("watchdog", "running");
            return new Result(false, details, unreachable);
        }
        details.put("redis", "reachable");
        details.put("watchdog", "running");
        PadlockInfo.renewedLeases(client).ifPresent(renewed -> details.put("renewedLeases", renewed));
        return new Result(true, details, null);
    }

    /**
     * One check's outcome: UP or DOWN, the details in a stable order, and what failed when Redis
     * could not be reached (null otherwise).
     */
    public record Result(boolean up, Map<String, Object> details, RuntimeException error) {
        public Result {
            details = Collections.unmodifiableMap(new LinkedHashMap<>(details));
        }
    }
}
