package dev.padlock.internal.script;

import dev.padlock.spi.Script;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * How a {@link ScriptRunner}'s calls reach Redis, chosen once per client from
 * {@link dev.padlock.LockConfig.Scripting}: {@link EvalRoute} ({@code EVALSHA}, loaded by
 * {@code EVAL}) or {@link FunctionRoute} ({@code FCALL} of a functions library). Each call is
 * one command either way; a script Redis does not know costs one more call and a second attempt.
 */
sealed interface ScriptRoute permits EvalRoute, FunctionRoute {

    /** {@return how {@code script}, one of lock-lua's, is named on the wire: its SHA1 or its function, as bytes} */
    byte[] id(LuaScript script);

    /** {@return how {@code script}, another module's, is named on the wire} */
    byte[] id(Script script);

    /** Sends one call of {@code script}, named {@code id}: {@code EVALSHA} or {@code FCALL}. */
    <T> CompletableFuture<T> send(RedisClusterAsyncCommands<String, String> commands, byte[] id, ScriptOutputType type,
            String[] keys, String[] args);

    /**
     * The same call once more, once Redis knows the script, when {@code failure} says it did not
     * ({@code NOSCRIPT}, or a missing function); null for any other failure. The second attempt
     * runs after whatever this connection sent meanwhile.
     */
    <T> @Nullable CompletableFuture<T> retry(Throwable failure, RedisClusterAsyncCommands<String, String> commands,
            Script script, byte[] id, ScriptOutputType type, String[] keys, String[] args);

    /**
     * One call of {@code script} that runs in the order it was sent among this connection's
     * commands, or not at all: never a second attempt after commands sent later.
     */
    <T> CompletableFuture<T> sendInOrder(RedisClusterAsyncCommands<String, String> commands, LuaScript script,
            ScriptOutputType type, String[] keys, String[] args);
}
