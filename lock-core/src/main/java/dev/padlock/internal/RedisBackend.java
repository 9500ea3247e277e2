package dev.padlock.internal;

import dev.padlock.LockConfig;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The Redis connections of one client: one multiplexed command connection and one pub/sub
 * connection, both opened at the start so that no Redis I/O thread ever waits for a connect. The same code runs on a single server, a Sentinel-managed
 * server and a Cluster; only this class knows which.
 *
 * <p>Lettuce reconnects both connections by itself after a drop and resubscribes the pub/sub
 * channels; commands sent while disconnected wait for the reconnect, bounded by the command
 * timeout.
 */
public final class RedisBackend implements AutoCloseable {
    private final String address;
    private final RedisClient client;                 // null on a Cluster
    private final RedisClusterClient clusterClient;   // null on a single server
    private final StatefulConnection<String, String> connection;
    private final RedisClusterAsyncCommands<String, String> commands;
    private final StatefulRedisPubSubConnection<String, String> pubSub;

    private RedisBackend(String address, RedisClient client, RedisClusterClient clusterClient) {
        this.address = address;
        this.client = client;
        this.clusterClient = clusterClient;
        try {
            if (client != null) {
                var c = client.connect(StringCodec.UTF8);
                this.connection = c;
                this.commands = c.async();
                this.pubSub = client.connectPubSub(StringCodec.UTF8);
            } else {
                var c = clusterClient.connect(StringCodec.UTF8);
                this.connection = c;
                this.commands = c.async();
                this.pubSub = clusterClient.connectPubSub(StringCodec.UTF8);
            }
        } catch (RuntimeException e) {
            shutdown();
            throw RedisErrors.translate(e, "connect", address);
        }
    }

    /** Connects as {@code config} says. */
    public static RedisBackend open(LockConfig config) {
        Duration timeout = config.commandTimeout();
        SocketOptions socket = SocketOptions.builder().connectTimeout(timeout).keepAlive(true).build();
        TimeoutOptions timeouts = TimeoutOptions.enabled(timeout);
        if (config.redisUri().isPresent()) {
            String uri = config.redisUri().get();
            RedisURI redisUri = RedisUris.parse(uri, timeout);
            RedisClient client = RedisClient.create(redisUri);
            client.setOptions(ClientOptions.builder()
                    .socketOptions(socket).timeoutOptions(timeouts).autoReconnect(true).build());
            return new RedisBackend(RedisUris.redact(uri), client, null);
        }
        List<RedisURI> seeds = new ArrayList<>();
        for (String uri : config.clusterUris()) {
            seeds.add(RedisUris.parse(uri, timeout));
        }
        RedisClusterClient cluster = RedisClusterClient.create(seeds);
        // Lettuce 7 refreshes the Cluster topology adaptively by default (MOVED, ASK, reconnects)
        cluster.setOptions(ClusterClientOptions.builder()
                .socketOptions(socket).timeoutOptions(timeouts).autoReconnect(true)
                .build());
        String address = config.clusterUris().stream().map(RedisUris::redact)
                .collect(Collectors.joining(",", "cluster[", "]"));
        return new RedisBackend(address, null, cluster);
    }

    /** The server address for messages, without credentials. */
    public String address() {
        return address;
    }

    /** The command connection's asynchronous API; thread-safe and multiplexed. */
    public RedisClusterAsyncCommands<String, String> commands() {
        return commands;
    }

    /** Whether keys of one multi-key call must share a Cluster slot. */
    public boolean isCluster() {
        return clusterClient != null;
    }

    /** The Cluster slot of {@code key}, for grouping batched calls. */
    public static int slot(String key) {
        return SlotHash.getSlot(key);
    }

    /** The pub/sub connection; Lettuce resubscribes its channels after a reconnect. */
    public StatefulRedisPubSubConnection<String, String> pubSub() {
        return pubSub;
    }

    @Override
    public void close() {
        shutdown(); // closes both connections
    }

    private void shutdown() {
        if (client != null) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        if (clusterClient != null) {
            clusterClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }
}
