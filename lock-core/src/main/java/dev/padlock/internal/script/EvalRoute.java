package dev.padlock.internal.script;

import dev.padlock.internal.redis.RedisErrors;
import dev.padlock.spi.Script;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.protocol.CommandType;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * {@link dev.padlock.LockConfig.Scripting#EVAL}: each call an {@code EVALSHA} of the script's
 * SHA1; on {@code NOSCRIPT} (a restart, a {@code SCRIPT FLUSH}, a failover) the same call as
 * {@code EVAL} with the body, which also loads it. Calls that must run in order are {@code EVAL}s
 * from the start, which never meet {@code NOSCRIPT}.
 */
final class EvalRoute implements ScriptRoute {
    static final EvalRoute INSTANCE = new EvalRoute();

    private EvalRoute() {
    }

    @Override
    public byte[] id(LuaScript script) {
        return script.sha1Bytes();
    }

    @Override
    public byte[] id(Script script) {
        return script.sha1().getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public <T> CompletableFuture<T> send(RedisClusterAsyncCommands<String, String> commands, byte[] id,
            ScriptOutputType type, String[] keys, String[] args) {
        return ScriptCall.dispatch(commands, CommandType.EVALSHA, id, type, keys, args);
    }

    @Override
    public <T> @Nullable CompletableFuture<T> retry(Throwable failure, RedisClusterAsyncCommands<String, String> commands,
            Script script, byte[] id, ScriptOutputType type, String[] keys, String[] args) {
        if (RedisErrors.unwrap(failure) instanceof RedisNoScriptException) {
            return commands.<T>eval(script.body(), type, keys, args).toCompletableFuture();
        }
        return null;
    }

    @Override
    public <T> CompletableFuture<T> sendInOrder(RedisClusterAsyncCommands<String, String> commands, LuaScript script,
            ScriptOutputType type, String[] keys, String[] args) {
        return commands.<T>eval(script.body(), type, keys, args).toCompletableFuture();
    }
}
