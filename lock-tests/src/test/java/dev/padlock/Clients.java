package dev.padlock;

import dev.padlock.testing.RedisEndpoint;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.UnaryOperator;

/** Opens Padlock clients for one test and closes them all after it. */
final class Clients implements AutoCloseable {
    private final RedisEndpoint redis;
    private final List<LockClient> open = new ArrayList<>();

    Clients(RedisEndpoint redis) {
        this.redis = redis;
    }

    LockClient open() {
        return open(b -> b);
    }

    LockClient open(UnaryOperator<LockConfig.Builder> settings) {
        LockClient client = LockClient.create(settings.apply(LockConfig.builder()
                .redisUri(redis.uri())
                .commandTimeout(Duration.ofSeconds(3))).build());
        open.add(client);
        return client;
    }

    /** A lock name no other test uses. */
    static String uniqueName(String prefix) {
        return prefix + ":" + UUID.randomUUID();
    }

    @Override
    public void close() {
        for (LockClient client : open) {
            client.close();
        }
        open.clear();
    }
}
