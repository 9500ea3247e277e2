package dev.padlock.tests.support;

import static java.util.concurrent.TimeUnit.SECONDS;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** A Redisson client beside Padlock's on the same Redis, for the interop tests. */
public final class Redissons {
    private Redissons() {
    }

    /** A single-server Redisson client on {@code uri}, with room for a few threads waiting at once. */
    public static RedissonClient open(String uri) {
        Config config = new Config();
        config.useSingleServer()
                .setAddress(uri)
                .setConnectionMinimumIdleSize(2)
                .setConnectionPoolSize(16)
                .setSubscriptionConnectionMinimumIdleSize(1);
        return Redisson.create(config);
    }

    /** Shuts {@code redisson} down, if open. */
    public static void close(RedissonClient redisson) {
        if (redisson != null) {
            redisson.shutdown(0, 5, SECONDS);
        }
    }
}
