package dev.padlock.testing;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import io.lettuce.core.sentinel.api.sync.RedisSentinelCommands;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The topology fixtures' own connections, one per node and kind, opened on first use. They do
 * not reconnect by themselves: a node that was killed or restarted gets a new connection the
 * next time it is asked for, and a command to a node that is down fails at once instead of
 * queueing. Every command is bounded by a 2 s timeout.
 *
 * <p>Thread-safe (synchronized on this object); close it when done.
 */
final class NodeConnections implements AutoCloseable {

    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

    private final RedisClient client;
    /** Guarded by {@code this}; keyed by port. */
    private final Map<Integer, StatefulRedisConnection<String, String>> data = new HashMap<>();
    /** Guarded by {@code this}; keyed by port. */
    private final Map<Integer, StatefulRedisSentinelConnection<String, String>> sentinels = new HashMap<>();
    /** Guarded by {@code this}. */
    private boolean closed;

    NodeConnections() {
        client = RedisClient.create();
        client.setOptions(ClientOptions.builder().autoReconnect(false).build());
    }

    /** Synchronous commands on {@code node}, over a connection opened if needed. */
    synchronized RedisCommands<String, String> commands(RedisServerProcess node) {
        requireOpen();
        StatefulRedisConnection<String, String> connection = data.get(node.port());
        if (connection == null || !connection.isOpen()) {
            closeQuietly(connection);
            connection = client.connect(uri(node));
            data.put(node.port(), connection);
        }
        return connection.sync();
    }

    /** Synchronous Sentinel commands on the Sentinel {@code node}, over a connection opened if needed. */
    synchronized RedisSentinelCommands<String, String> sentinel(RedisServerProcess node) {
        requireOpen();
        StatefulRedisSentinelConnection<String, String> connection = sentinels.get(node.port());
        if (connection == null || !connection.isOpen()) {
            closeQuietly(connection);
            connection = client.connectSentinel(uri(node));
            sentinels.put(node.port(), connection);
        }
        return connection.sync();
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        data.clear();
        sentinels.clear();
        // The shutdown closes every connection of the client, open or not.
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }

    private static RedisURI uri(RedisServerProcess node) {
        Objects.requireNonNull(node, "node");
        return RedisURI.builder()
                .withHost(RedisServerProcess.HOST)
                .withPort(node.port())
                .withTimeout(COMMAND_TIMEOUT)
                .build();
    }

    /**
     * Closes a connection that is still open; one that is not was closed by its server (killed,
     * or {@code CLIENT KILL} by a Sentinel) and is released by the client's shutdown.
     */
    private static void closeQuietly(StatefulConnection<String, String> connection) {
        if (connection != null && connection.isOpen()) {
            connection.closeAsync();
        }
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("The node connections are closed");
        }
    }
}
