package dev.padlock.internal.redis;

import static dev.padlock.internal.base.Nulls.castToNonNull;

import dev.padlock.LockConfig;
import dev.padlock.internal.base.RedisUris;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.CommandListenerWriter;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.event.connection.ConnectionActivatedEvent;
import io.lettuce.core.event.connection.ConnectionDeactivatedEvent;
import io.lettuce.core.event.connection.ReconnectFailedEvent;
import io.lettuce.core.protocol.CommandExpiryWriter;
import io.lettuce.core.protocol.DefaultEndpoint;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;

/**
 * The {@link RedisBackend} on Lettuce: one multiplexed command connection and one pub/sub
 * connection, both opened at the start so that no Redis I/O thread ever waits for a connect. The
 * same code runs on a single server, a Sentinel-managed server and a Cluster; only this class
 * knows which.
 *
 * <p>Lettuce reconnects both connections by itself after a drop and resubscribes the pub/sub
 * channels; plain commands sent while disconnected wait for the reconnect, bounded by the command
 * timeout, but scripts are never sent again nor held back: see {@link ScriptReplayFilter}. While
 * the command connection is down and Lettuce's last reconnect failed, {@link #unreachable()} says
 * why, so that a call that would only ride the outage out can fail at once. With Sentinel, a {@link SentinelMasterFollower} also drops both connections when the
 * Sentinels switch the master (or a write is answered {@code READONLY}), so that they reconnect
 * to the new master, and then reports it as {@link PubSubEvents#topologyChanged()}.
 *
 * <p>Pub/sub is classic ({@code SUBSCRIBE}/{@code PUBLISH}) except on a Redis 7 Cluster, where it
 * is sharded ({@code SSUBSCRIBE}/{@code SPUBLISH}): a message then stays on the shard that owns
 * the lock's slot instead of being broadcast to every node.
 */
final class LettuceBackend implements RedisBackend {
    private static final Logger log = LoggerFactory.getLogger(LettuceBackend.class);
    private final String address;
    /** How a failed connection is told: names the trust store and the database. */
    private final ConnectFailures connects;
    private final @Nullable RedisClient client;                 // null on a Cluster
    private final @Nullable RedisClusterClient clusterClient;   // null on a single server
    private final StatefulConnection<String, String> connection;
    private final RedisClusterAsyncCommands<String, String> commands;
    private final StatefulRedisPubSubConnection<String, String> pubSub;
    private final boolean sharded;
    private final @Nullable SentinelMasterFollower sentinel;     // null unless Sentinel-managed
    private volatile @Nullable Disposable topologyEvents;
    /** The client's connection events, for {@link #lastReconnectFailure}; null on a Cluster (not followed there). */
    private final @Nullable Disposable connectionEvents;
    /** Why the last reconnect failed; null once a connection is up again. */
    private volatile @Nullable Throwable lastReconnectFailure;
    private volatile @Nullable PubSubEvents events;
    /** Whether a refused SUBSCRIBE was logged at WARN; later ones are not, as waiters retry them often. */
    private final AtomicBoolean refusedSubscriptionLogged = new AtomicBoolean();
    private final AtomicBoolean refusedMessageLogged = new AtomicBoolean();

    private LettuceBackend(String address, ConnectFailures connects, @Nullable RedisClient client,
            @Nullable RedisClusterClient clusterClient, @Nullable SentinelMasterFollower sentinel) {
        this.address = address;
        this.connects = connects;
        this.client = client;
        this.clusterClient = clusterClient;
        this.sentinel = sentinel;
        try {
            if (client != null) {
                var c = client.connect(Utf8Codec.INSTANCE);
                this.connection = c;
                this.commands = c.async();
                this.pubSub = client.connectPubSub(Utf8Codec.INSTANCE);
            } else {
                var c = castToNonNull(clusterClient).connect(Utf8Codec.INSTANCE); // no client: a Cluster
                this.connection = c;
                this.commands = c.async();
                StatefulRedisClusterPubSubConnection<String, String> clusterPubSub =
                        castToNonNull(clusterClient).connectPubSub(Utf8Codec.INSTANCE);
                // sharded subscriptions live on the node of their slot: hear those nodes too
                clusterPubSub.setNodeMessagePropagation(true);
                this.pubSub = clusterPubSub;
            }
            this.sharded = clusterClient != null && majorVersion(connection) >= 7;
        } catch (RuntimeException e) {
            shutdown();
            throw RedisErrors.translate(e, "connect", address, connects);
        }
        this.connectionEvents = client == null ? null : client.getResources().eventBus().get().subscribe(event -> {
            // only failures since the last drop count: a connection that went down starts afresh
            if (event instanceof ReconnectFailedEvent failed) {
                lastReconnectFailure = failed.getCause();
            } else if (event instanceof ConnectionActivatedEvent || event instanceof ConnectionDeactivatedEvent) {
                lastReconnectFailure = null;
            }
        });
        if (sentinel != null) {
            sentinel.start(this::moveToNewMaster);
        }
    }

    /** Connects as {@code config} says. */
    static LettuceBackend open(LockConfig config) {
        Duration timeout = config.commandTimeout();
        SocketOptions socket = SocketOptions.builder().connectTimeout(timeout).keepAlive(true).build();
        TimeoutOptions timeouts = TimeoutOptions.enabled(timeout);
        if (config.redisUri().isPresent()) {
            String uri = config.redisUri().get();
            RedisURI redisUri = RedisUris.parse(uri, timeout);
            ClientOptions options = ClientOptions.builder()
                    .socketOptions(socket).timeoutOptions(timeouts).autoReconnect(true)
                    .sslOptions(sslOptions(config, timeout))
                    .replayFilter(ScriptReplayFilter.INSTANCE).build();
            ConnectFailures connects = ConnectFailures.of(config.trustStore().orElse(null), redisUri.getDatabase());
            if (!redisUri.getSentinels().isEmpty()) {
                SentinelMasterFollower sentinel = new SentinelMasterFollower(redisUri, timeout, options);
                return new LettuceBackend(RedisUris.redact(uri), connects, sentinel.client(), null, sentinel);
            }
            RedisClient client = RedisClient.create(redisUri);
            client.setOptions(options);
            return new LettuceBackend(RedisUris.redact(uri), connects, client, null, null);
        }
        List<RedisURI> seeds = new ArrayList<>();
        for (String uri : config.clusterUris()) {
            seeds.add(RedisUris.parse(uri, timeout));
        }
        RedisClusterClient cluster = RedisClusterClient.create(seeds);
        // a failover must be noticed fast: every adaptive trigger (MOVED, ASK, reconnects; Lettuce 7's
        // default, not 6's) fires, at the first failed reconnect to a node instead of the fifth, and
        // a periodic refresh every 30 s catches what no command trips over
        ClusterTopologyRefreshOptions refresh = ClusterTopologyRefreshOptions.builder()
                .enableAllAdaptiveRefreshTriggers()
                .refreshTriggersReconnectAttempts(1)
                .adaptiveRefreshTriggersTimeout(Duration.ofMillis(500))
                .enablePeriodicRefresh(Duration.ofSeconds(30))
                .build();
        ClusterClientOptions.Builder clusterOptions = ClusterClientOptions.builder()
                .socketOptions(socket).timeoutOptions(timeouts).autoReconnect(true)
                .sslOptions(sslOptions(config, timeout))
                .topologyRefreshOptions(refresh)
                .validateClusterNodeMembership(false); // Lettuce 7's default; Lettuce 6's is true
        clusterOptions.replayFilter(ScriptReplayFilter.INSTANCE); // not overridden: returns the base builder
        cluster.setOptions(clusterOptions.build());
        String address = config.clusterUris().stream().map(RedisUris::redact)
                .collect(Collectors.joining(",", "cluster[", "]"));
        return new LettuceBackend(address, ConnectFailures.of(config.trustStore().orElse(null), -1), null, cluster,
                null);
    }

    /**
     * TLS settings for {@code rediss://} URIs: the JDK's provider, the handshake bounded by the
     * command timeout, and the configured trust store when there is one (else the JVM's default).
     */
    private static SslOptions sslOptions(LockConfig config, Duration timeout) {
        SslOptions.Builder ssl = SslOptions.builder().jdkSslProvider().handshakeTimeout(timeout);
        config.trustStore().ifPresent(file -> ssl.truststore(SslOptions.Resource.from(file.toFile()),
                config.trustStorePassword().orElse(null)));
        return ssl.build();
    }

    @Override
    public String address() {
        return address;
    }

    @Override
    public RedisClusterAsyncCommands<String, String> commands() {
        return commands;
    }

    @Override
    public boolean isCluster() {
        return clusterClient != null;
    }

    @Override
    public CompletableFuture<RedisClusterAsyncCommands<String, String>> commandsFor(String key) {
        if (clusterClient == null) {
            return CompletableFuture.completedFuture(commands);
        }
        var cluster = (io.lettuce.core.cluster.api.StatefulRedisClusterConnection<String, String>) connection;
        var master = cluster.getPartitions().getMasterBySlot(RedisBackend.slot(key));
        if (master == null) {
            return CompletableFuture.failedFuture(new io.lettuce.core.RedisConnectionException(
                    "no master known for the slot of '" + key + "'"));
        }
        return cluster.getConnectionAsync(master.getNodeId())
                .thenApply(node -> (RedisClusterAsyncCommands<String, String>) node.async());
    }

    /** On a Cluster, the masters not marked as failing, by {@code host:port}. */
    @Override
    public CompletableFuture<Map<String, RedisClusterAsyncCommands<String, String>>> masters() {
        if (clusterClient == null) {
            return RedisBackend.super.masters();
        }
        var cluster = (io.lettuce.core.cluster.api.StatefulRedisClusterConnection<String, String>) connection;
        Map<String, CompletableFuture<RedisClusterAsyncCommands<String, String>>> nodes = new LinkedHashMap<>();
        for (RedisClusterNode node : cluster.getPartitions()) {
            if (node.is(RedisClusterNode.NodeFlag.UPSTREAM) && !node.is(RedisClusterNode.NodeFlag.FAIL)
                    && !node.is(RedisClusterNode.NodeFlag.EVENTUAL_FAIL)) {
                nodes.put(node.getUri().getHost() + ":" + node.getUri().getPort(), cluster.getConnectionAsync(node.getNodeId())
                        .thenApply(c -> (RedisClusterAsyncCommands<String, String>) c.async()).toCompletableFuture());
            }
        }
        return CompletableFuture.allOf(nodes.values().toArray(CompletableFuture[]::new)).thenApply(all -> {
            Map<String, RedisClusterAsyncCommands<String, String>> masters = new LinkedHashMap<>();
            nodes.forEach((address, node) -> masters.put(address, node.join()));
            return masters;
        });
    }

    @Override
    public boolean isSharded() {
        return sharded;
    }

    /**
     * A subscription that Redis refuses (an ACL user without the channel: {@code NOPERM}) is logged
     * at WARN, once per client, since waiters then fall back to polling.
     */
    @Override
    public CompletableFuture<Void> subscribe(String channel) {
        CompletableFuture<Void> subscribed = (sharded ? pubSub.async().ssubscribe(channel)
                : pubSub.async().subscribe(channel)).toCompletableFuture();
        subscribed.whenComplete((ok, failure) -> {
            if (failure != null && RedisErrors.unwrap(failure) instanceof RedisCommandExecutionException
                    && refusedSubscriptionLogged.compareAndSet(false, true)) {
                log.warn("{}", RedisErrors.translate(failure, (sharded ? "SSUBSCRIBE " : "SUBSCRIBE ") + channel, address)
                        .getMessage() + "; waiters of this client poll every 100 ms instead of waking on unlock"
                        + " messages: grant the user the lock channels (see docs/operating/tls-and-acl.md)");
            }
        });
        return subscribed;
    }

    /**
     * Once per client: the calls themselves succeed (the scripts go on past a refused message), so
     * this line is what tells that waiters elsewhere wait out the lease they saw.
     */
    @Override
    public void messageRefused(String operation) {
        if (refusedMessageLogged.compareAndSet(false, true)) {
            log.warn("{} at {}: Redis refused its unlock or grant message (the user may not publish on the lock's"
                    + " channels: NOPERM); the call itself succeeded. Waiters are not woken by this client's unlocks:"
                    + " they get the lock when the lease they saw runs out (waiters in line, at their next look)."
                    + " Grant the user the lock channels (see docs/operating/tls-and-acl.md); logged once",
                    operation, address);
        }
    }

    @Override
    public void unsubscribe(String channel) {
        if (sharded) {
            pubSub.async().sunsubscribe(channel);
        } else {
            pubSub.async().unsubscribe(channel);
        }
    }

    @Override
    public void listen(PubSubEvents events) {
        this.events = events;
        pubSub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                events.message(channel, message);
            }

            @Override
            public void smessage(String channel, String message) {
                events.message(channel, message);
            }

            @Override
            public void subscribed(String channel, long count) {
                events.subscribed(channel);
            }

            @Override
            public void ssubscribed(String channel, long count) {
                events.subscribed(channel);
            }

            @Override
            public void sunsubscribed(String channel, long count) {
                events.shardUnsubscribed(channel);
            }
        });
        if (clusterClient != null) {
            topologyEvents = clusterClient.getResources().eventBus().get()
                    .filter(ClusterTopologyChangedEvent.class::isInstance)
                    .subscribe(event -> events.topologyChanged());
        }
    }

    @Override
    public CompletableFuture<Void> refreshTopology() {
        if (clusterClient == null) {
            return CompletableFuture.completedFuture(null);
        }
        return clusterClient.refreshPartitionsAsync().toCompletableFuture();
    }

    /**
     * The last reconnect's failure while the command connection is down. Lettuce keeps trying, with
     * growing pauses; a short drop that reconnects at the first try (a Sentinel switch) is never
     * reported here.
     */
    @Override
    public @Nullable Throwable unreachable() {
        Throwable failure = lastReconnectFailure;
        return failure != null && !connection.isOpen() ? failure : null;
    }

    @Override
    public RuntimeException translate(Throwable failure, String operation) {
        if (sentinel != null && RedisErrors.isReadOnly(failure)) {
            sentinel.readOnlyReply();
        }
        return RedisErrors.translate(failure, operation, address, connects);
    }

    /**
     * Drops both connections, which Lettuce reconnects to the master the Sentinels name now (its
     * re-sent subscriptions included; commands sent meanwhile wait for that), and tells the
     * listener, whose waiters subscribe and try again.
     */
    private void moveToNewMaster() {
        disconnect(connection);
        disconnect(pubSub);
        PubSubEvents listener = events;
        if (listener != null) {
            listener.topologyChanged();
        }
    }

    /**
     * Closes {@code c}'s channel without closing {@code c}: Lettuce's watchdog reconnects it. The
     * endpoint is under the writers that time commands out and tell listeners (on Lettuce 6 too).
     */
    private static void disconnect(StatefulConnection<String, String> c) {
        RedisChannelWriter writer = ((RedisChannelHandler<?, ?>) c).getChannelWriter();
        while (writer instanceof CommandExpiryWriter || writer instanceof CommandListenerWriter) {
            writer = writer instanceof CommandExpiryWriter expiry ? expiry.getDelegate()
                    : ((CommandListenerWriter) writer).getDelegate();
        }
        if (writer instanceof DefaultEndpoint endpoint) {
            endpoint.disconnect();
        }
    }

    /** The server's major version, from {@code INFO server}; 0 when it cannot be read. */
    private static int majorVersion(StatefulConnection<String, String> connection) {
        String info = connection instanceof io.lettuce.core.cluster.api.StatefulRedisClusterConnection<String, String> c
                ? c.sync().info("server")
                : ((io.lettuce.core.api.StatefulRedisConnection<String, String>) connection).sync().info("server");
        for (String line : info.split("\\r?\\n")) {
            if (line.startsWith("redis_version:")) {
                String version = line.substring("redis_version:".length()).trim();
                int dot = version.indexOf('.');
                try {
                    return Integer.parseInt(dot < 0 ? version : version.substring(0, dot));
                } catch (NumberFormatException e) {
                    return 0;
                }
            }
        }
        return 0;
    }

    @Override
    public void close() {
        Disposable events = topologyEvents;
        if (events != null) {
            events.dispose();
        }
        if (connectionEvents != null) {
            connectionEvents.dispose();
        }
        shutdown(); // closes both connections
    }

    private void shutdown() {
        if (sentinel != null) {
            sentinel.close(); // its client made both connections
        } else if (client != null) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        if (clusterClient != null) {
            // close the two connections first: left to the client's shutdown, their node
            // connections are closed twice, and Lettuce warns "Connection is already closed"
            closeQuietly(pubSub);
            closeQuietly(connection);
            clusterClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    private static void closeQuietly(StatefulConnection<String, String> c) {
        if (c != null) {
            c.close();
        }
    }
}
