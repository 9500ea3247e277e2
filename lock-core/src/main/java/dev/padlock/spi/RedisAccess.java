package dev.padlock.spi;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.internal.SpiAccess;
import dev.padlock.internal.base.EngineClock;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A way to Redis as a {@link LockClient} has it: its connections (one server, Sentinel's master,
 * or a Cluster), its command timeout, and its error messages, which name the address and the
 * operation. Failures come back as {@link dev.padlock.RedisUnavailableException} or
 * {@link dev.padlock.RedisCommandException}.
 *
 * <p>Calls return futures; a caller that blocks bounds its wait with {@link #commandTimeout()}.
 */
public interface RedisAccess {

    /**
     * The connections of {@code client}, which stays their owner: closing the client closes them.
     *
     * @param client the client
     * @return its connections
     * @throws IllegalArgumentException when {@code client} was not made by {@link LockClient#connect}
     *     or {@link LockClient#create}
     * @throws dev.padlock.RedisUnavailableException when {@code client} started without Redis and
     *     has not connected yet ({@link LockConfig#startWithoutRedis()})
     */
    static RedisAccess of(LockClient client) {
        return SpiAccess.of(client);
    }

    /**
     * Connections of their own, as {@code config} says (URI forms, TLS, Sentinel, Cluster), with no
     * client behind them: no registry entry, no watchdog. The caller closes them.
     *
     * @param config the settings; only those of the connection are used
     * @return the connections, to be closed
     * @throws dev.padlock.RedisUnavailableException when Redis cannot be reached
     */
    static RedisConnection open(LockConfig config) {
        return SpiAccess.open(config, EngineClock.SYSTEM); // assembled here, as a client is: its clock
    }

    /** {@return the address, for messages: {@code host:port}, the Sentinel master's name, or the seed nodes} */
    String address();

    /** {@return the bound on one round trip, as configured} */
    Duration commandTimeout();

    /**
     * Runs {@code script} with {@code EVALSHA}, and once more with {@code EVAL} when Redis does not
     * know it; with {@link LockConfig.Scripting#FUNCTIONS}, with {@code FCALL} of the script's own
     * function ({@code padlock_ext_<version>_<name>}) in Padlock's functions library
     * {@code padlock}, added to it (which needs {@code +function|list +function|load}) and called
     * once more where Redis does not have it yet. One command a
     * call either way. On a Cluster the call goes to the master of {@code keys[0]}'s slot.
     *
     * @param <T> the reply's type, as {@code type} reads it
     * @param script the script
     * @param type how Redis's reply is read, e.g. {@link ScriptOutputType#INTEGER}
     * @param keys at least one key
     * @param args the script's {@code ARGV}
     * @return a future of the reply; it fails with the exceptions named above
     */
    <T extends @Nullable Object> CompletableFuture<T> run(Script script, ScriptOutputType type, String[] keys,
            String... args);

    /** {@return a {@code PING}'s future: completes with the round trip, or exceptionally when Redis does not answer} */
    CompletableFuture<Duration> ping();

    /** {@return Lettuce's commands on these connections; on a Cluster they route each key to its slot's master} */
    RedisClusterAsyncCommands<String, String> commands();

    /**
     * The commands of the master that serves {@code key}'s slot (the one server when not a Cluster).
     *
     * @param key a key
     * @return a future of that master's commands
     */
    CompletableFuture<RedisClusterAsyncCommands<String, String>> commandsFor(String key);

    /** {@return whether these are connections to a Redis Cluster} */
    boolean isCluster();

    /** {@return whether waiters use sharded pub/sub ({@code SSUBSCRIBE}: a Cluster of Redis 7 or later)} */
    boolean isSharded();

    /**
     * {@code failure} of {@code operation} as Padlock reports it: a
     * {@link dev.padlock.RedisUnavailableException} or {@link dev.padlock.RedisCommandException}
     * naming the address and the operation.
     *
     * @param failure what the call failed with
     * @param operation what was done, for the message
     * @return the exception to throw or complete with
     */
    RuntimeException translate(Throwable failure, String operation);
}
