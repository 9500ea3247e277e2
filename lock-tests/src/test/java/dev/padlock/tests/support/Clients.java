package dev.padlock.tests.support;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.internal.PadlockClient;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Opens Padlock clients on the test class's Redis and closes them all after each test. Register
 * it on a {@code @RedisTest} class with {@code @RegisterExtension final Clients clients = new Clients();}.
 */
public final class Clients implements BeforeEachCallback, AfterEachCallback {
    private final List<LockClient> open = new ArrayList<>();
    private RedisEndpoint redis;

    @Override
    public void beforeEach(ExtensionContext context) {
        redis = RedisExtension.endpoint(context)
                .orElseThrow(() -> new IllegalStateException("Clients needs a @RedisTest class"));
    }

    @Override
    public void afterEach(ExtensionContext context) {
        for (LockClient client : open) {
            client.close();
        }
        open.clear();
    }

    public LockClient open() {
        return open(b -> b);
    }

    public LockClient open(UnaryOperator<LockConfig.Builder> settings) {
        LockClient client = LockClient.create(settings.apply(LockConfig.builder()
                .redisUri(redis.uri())
                .commandTimeout(Duration.ofSeconds(3))).build());
        open.add(client);
        awaitRegistered(client);
        return client;
    }

    /**
     * Waits (at most 5 s) for the client's registry entry to be written: tests that count a
     * server's commands must not count a registration that lands while they measure.
     */
    public static void awaitRegistered(LockClient client) {
        try {
            ((PadlockClient) client).registered().get(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // a client whose Redis does not answer: the test itself will say so
        }
    }

    /** A lock name no other test uses. */
    public static String uniqueName(String prefix) {
        return prefix + ":" + UUID.randomUUID();
    }
}
