package dev.padlock.testing;

/** Where a {@link RedisEndpoint} came from, in the order {@link RedisProvisioner} tries them. */
public enum RedisSource {
    /** The URI in the environment variable {@code PADLOCK_REDIS_URI}; not controllable. */
    EXTERNAL_URI(false),
    /**
     * {@code redis-server} on the {@code PATH} ({@code valkey-server} when chosen: {@link
     * RedisBinary.Choice}), run as a {@link RedisServerProcess}.
     */
    PATH_BINARY(true),
    /** The binary from the embedded-redis jar, run as a {@link RedisServerProcess}. */
    EMBEDDED_BINARY(true),
    /** A Testcontainers {@code redis:7} container; not controllable. */
    TESTCONTAINERS(false);

    private final boolean controllable;

    RedisSource(boolean controllable) {
        this.controllable = controllable;
    }

    /** Whether servers from this source can be stopped, restarted, paused and resumed. */
    public boolean isControllable() {
        return controllable;
    }
}
