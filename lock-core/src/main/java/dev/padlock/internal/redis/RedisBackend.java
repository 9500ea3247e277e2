package dev.padlock.internal.redis;

import dev.padlock.LockConfig;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The Redis of one client: a command connection and a pub/sub connection on a single server, a
 * Sentinel-managed server or a Cluster. The engine reaches Redis only through this interface:
 * {@link #open} gives the Lettuce one; a simulation gives a model of Redis in virtual time.
 *
 * <p>Pub/sub is classic ({@code SUBSCRIBE}/{@code PUBLISH}) except on a Redis 7 Cluster, where it
 * is sharded ({@code SSUBSCRIBE}/{@code SPUBLISH}): a message then stays on the shard that owns
 * the lock's slot instead of being broadcast to every node.
 */
public interface RedisBackend extends AutoCloseable {

    /**
     * Connects with Lettuce as {@code config} says, once {@link LettuceLine} has found a Lettuce
     * and a Netty that Padlock runs on.
     */
    static RedisBackend open(LockConfig config) {
        LettuceLine.check();
        return LettuceBackend.open(config);
    }

    /** The Cluster slot of {@code key}, for grouping batched calls. */
    static int slot(String key) {
        return SlotHash.getSlot(key);
    }

    /** The server address for messages, without credentials. */
    String address();

    /** The command connection's asynchronous API; thread-safe and multiplexed. */
    RedisClusterAsyncCommands<String, String> commands();

    /** Whether keys of one multi-key call must share a Cluster slot. */
    boolean isCluster();

    /**
     * The commands of the one connection that reaches the master of {@code key}'s slot: on a
     * single server the command connection itself; on a Cluster, the connection to that node,
     * which does not follow redirects. Calls that must share a connection (a write and the
     * {@code WAIT} that counts its replicas) go through it.
     */
    CompletableFuture<RedisClusterAsyncCommands<String, String>> commandsFor(String key);

    /**
     * The commands of every master by its address (for messages): the one server's command
     * connection; on a Cluster, a connection to each master of the slot map as the client knows it
     * now. For what must be on every master (a functions library).
     */
    default CompletableFuture<Map<String, RedisClusterAsyncCommands<String, String>>> masters() {
        return CompletableFuture.completedFuture(Map.of(address(), commands()));
    }

    /** Whether pub/sub is sharded: a Redis 7 Cluster. */
    boolean isSharded();

    /** The command the release scripts publish with: {@code spublish} when sharded, else {@code publish}. */
    default String publishCommand() {
        return isSharded() ? "spublish" : "publish";
    }

    /**
     * Subscribes to {@code channel} (sharded when {@link #isSharded()}); completes when Redis
     * confirmed.
     */
    CompletableFuture<Void> subscribe(String channel);

    /**
     * Redis refused a message that a script of {@code operation} published (an ACL user without
     * the channel: NOPERM), while the call itself landed: the waiters it was for are not woken.
     * Logged at WARN once per client; a backend that has no log does nothing.
     */
    default void messageRefused(String operation) {
    }

    /** Unsubscribes from {@code channel}. */
    void unsubscribe(String channel);

    /** Tells {@code events} of every message and every (re)subscription on the pub/sub connection. */
    void listen(PubSubEvents events);

    /**
     * Asks the Cluster for its slot map now (a topology change is reported to the listener when it
     * changed); completes at once on a single server.
     */
    CompletableFuture<Void> refreshTopology();

    /**
     * Why a command sent now cannot reach Redis, known without sending one: the command connection
     * is down and the last attempt to reconnect it failed (refused: nothing listens; or timed out).
     * Null while it is up, while a reconnect is still to be tried, and on a backend that cannot tell.
     */
    default @Nullable Throwable unreachable() {
        return null;
    }

    /**
     * {@link RedisErrors#translate} with this backend's address: the exception a caller sees for
     * {@code failure} of {@code operation}.
     */
    RuntimeException translate(Throwable failure, String operation);

    @Override
    void close();

    /** What the pub/sub connection reports. */
    interface PubSubEvents {
        void message(String channel, String message);

        void subscribed(String channel);

        /**
         * The Cluster's slot map changed (a failover, a resharding): sharded subscriptions of
         * moved slots are gone with their old node and must be sent again. Also after a
         * Sentinel master switch: the connections are moving to the new master, and what waited
         * for a message from the old one must subscribe and look again.
         */
        void topologyChanged();

        /**
         * A sharded subscription ended: this client unsubscribed it, or the node dropped it
         * because the channel's slot moved away.
         */
        void shardUnsubscribed(String channel);
    }
}
