package dev.padlock.testing;

import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * An admin connection for assertions in tests, the demo and the benchmarks: inspect keys and
 * channels, read {@code INFO commandstats}, flush scripts, kill pub/sub clients.
 *
 * <p>The connection is a Lettuce one and reconnects after a server restart. Its own commands
 * ({@code HELLO}, {@code CLIENT SETINFO} when connecting, and each {@code INFO}) show up in
 * {@code INFO commandstats} too. Thread-safe; close it when done.
 */
public final class RedisAdmin implements AutoCloseable {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    /** The handshake's bound: generous, as a server just started on a busy machine answers late. */
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(30);

    private final String uri;
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;

    private RedisAdmin(String uri, RedisClient client, StatefulRedisConnection<String, String> connection) {
        this.uri = uri;
        this.client = client;
        this.connection = connection;
    }

    /** Connects to {@code uri} (waiting up to 30 s for the handshake) with a 5 s command timeout. */
    public static RedisAdmin connect(String uri) {
        Objects.requireNonNull(uri, "uri");
        RedisURI redisUri = RedisURI.create(uri);
        redisUri.setTimeout(CONNECT_TIMEOUT);
        RedisClient client = RedisClient.create(redisUri);
        try {
            StatefulRedisConnection<String, String> connection = client.connect();
            connection.setTimeout(TIMEOUT);
            return new RedisAdmin(uri, client, connection);
        } catch (RuntimeException e) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            throw e;
        }
    }

    /** The URI this admin is connected to. */
    public String uri() {
        return uri;
    }

    /** The synchronous Lettuce commands of this connection, for anything not wrapped here. */
    public RedisCommands<String, String> commands() {
        return connection.sync();
    }

    /** Whether the server answers {@code PING}. */
    public boolean ping() {
        return "PONG".equals(commands().ping());
    }

    /** A snapshot of {@code INFO commandstats}. */
    public CommandStats commandStats() {
        return CommandStats.parse(commands().info("commandstats"));
    }

    /** Every key in the current database ({@code KEYS *}: for tests only). */
    public List<String> keys() {
        return commands().keys("*");
    }

    /** The active pub/sub channels, classic and sharded. */
    public List<String> pubSubChannels() {
        List<String> channels = new ArrayList<>(commands().pubsubChannels());
        try {
            channels.addAll(commands().pubsubShardChannels());
        } catch (io.lettuce.core.RedisCommandExecutionException e) {
            // Redis 6.2 has no sharded pub/sub: no shard channels.
        }
        return channels;
    }

    /** {@code FLUSHALL}. */
    public void flushAll() {
        commands().flushall();
    }

    /** {@code SCRIPT FLUSH}: the next {@code EVALSHA} of any script gets {@code NOSCRIPT}. */
    public void scriptFlush() {
        commands().scriptFlush();
    }

    /** {@code CLIENT KILL TYPE pubsub}; returns how many clients were killed. */
    public long killPubSubClients() {
        Long killed = commands().clientKill(KillArgs.Builder.typePubsub());
        return killed == null ? 0 : killed;
    }

    /** The value of one field of {@code INFO}, e.g. {@code redis_version}; null when absent. */
    public String infoField(String section, String field) {
        for (String line : commands().info(section).split("\r?\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1).trim();
            }
        }
        return null;
    }

    @Override
    public void close() {
        try {
            connection.close();
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }
}
