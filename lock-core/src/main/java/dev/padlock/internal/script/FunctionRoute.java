package dev.padlock.internal.script;

import dev.padlock.internal.redis.RedisBackend;
import dev.padlock.internal.redis.RedisErrors;
import dev.padlock.spi.Script;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.protocol.CommandType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * {@link dev.padlock.LockConfig.Scripting#FUNCTIONS}: each call an {@code FCALL} of the script's
 * function in the Redis Functions library {@code padlock}: lock-lua's scripts in this version's
 * block, {@link #LOCK_LUA}; each other module's script (lock-shedlock's) in an extension block of
 * its own, added at its first call ({@link FunctionBlock}, {@link FunctionLibrary}).
 *
 * <p>{@link #prepare} puts {@link #LOCK_LUA} on every master when the client connects, where its
 * version function does not answer. A call that finds its function missing (a
 * {@code FUNCTION FLUSH}, a failover to a node that never had it, a master added since, another
 * Padlock version's merge that dropped this one's block, another module's script at its first call)
 * puts its block back on the master of its first key ({@link FunctionLoader}) and is sent once more,
 * as {@code EVAL} follows {@code NOSCRIPT}. A call that must run in order is not sent again: it
 * fails, naming the reason, once the block is back for the calls after it.
 */
final class FunctionRoute implements ScriptRoute {
    /** lock-lua's scripts, in {@link LuaScript}'s order: this version's block of the library {@code padlock}. */
    static final FunctionBlock LOCK_LUA = FunctionBlock.of(FunctionBlock.VERSION, "padlock",
            Arrays.stream(LuaScript.values()).map(LuaScript::script).toList());
    private static final byte[][] LOCK_LUA_IDS = Arrays.stream(LuaScript.values())
            .map(script -> LOCK_LUA.functionBytes(script.file())).toArray(byte[][]::new);

    private final RedisBackend backend;
    private final FunctionLoader loader = new FunctionLoader();
    /** Other modules' scripts by name and SHA1, each with its block and function. */
    private final Map<String, Extension> extensions = new ConcurrentHashMap<>();

    FunctionRoute(RedisBackend backend) {
        this.backend = backend;
    }

    private record Extension(FunctionBlock block, byte[] id) {
    }

    private Extension extension(Script script) {
        return extensions.computeIfAbsent(script.name() + "@" + script.sha1(), key -> {
            // a function's name takes letters, digits and underscores only
            Script named = Script.of(script.name().replaceAll("[^A-Za-z0-9_]", "_"), script.body());
            FunctionBlock block = FunctionBlock.of(FunctionBlock.EXTENSION, "padlock_ext", List.of(named));
            return new Extension(block, block.functionBytes(named.name()));
        });
    }

    @Override
    public byte[] id(LuaScript script) {
        return LOCK_LUA_IDS[script.ordinal()];
    }

    @Override
    public byte[] id(Script script) {
        return extension(script).id();
    }

    private FunctionBlock block(Script script) {
        for (LuaScript lua : LuaScript.values()) {
            if (lua.script() == script) {
                return LOCK_LUA;
            }
        }
        return extension(script).block();
    }

    @Override
    public <T> CompletableFuture<T> send(RedisClusterAsyncCommands<String, String> commands, byte[] id,
            ScriptOutputType type, String[] keys, String[] args) {
        return ScriptCall.dispatch(commands, CommandType.FCALL, id, type, keys, args);
    }

    @Override
    public <T> @Nullable CompletableFuture<T> retry(Throwable failure, RedisClusterAsyncCommands<String, String> commands,
            Script script, byte[] id, ScriptOutputType type, String[] keys, String[] args) {
        if (!RedisErrors.isFunctionMissing(failure)) {
            return null;
        }
        return ensure(block(script), keys[0]).thenCompose(loaded -> send(commands, id, type, keys, args));
    }

    @Override
    public <T> CompletableFuture<T> sendInOrder(RedisClusterAsyncCommands<String, String> commands, LuaScript script,
            ScriptOutputType type, String[] keys, String[] args) {
        return this.<T>send(commands, id(script), type, keys, args).exceptionallyCompose(failure -> {
            if (!RedisErrors.isFunctionMissing(failure)) {
                return CompletableFuture.failedFuture(failure);
            }
            RedisCommandExecutionException notSent = new RedisCommandExecutionException(RedisErrors.unwrap(failure)
                    .getMessage() + " (Padlock's functions library " + FunctionLibrary.NAME + " lacked this client's"
                    + " version " + LOCK_LUA.version() + " there: a FUNCTION FLUSH, a node that never had it, or another"
                    + " Padlock version's load that dropped it; put back for the calls that follow, but this call is not"
                    + " sent twice, as calls sent after it rely on its order)", RedisErrors.unwrap(failure));
            return ensure(LOCK_LUA, keys[0]).handle((loaded, loadFailure) -> {
                if (loadFailure != null) {
                    notSent.addSuppressed(RedisErrors.unwrap(loadFailure));
                }
                throw new CompletionException(notSent);
            });
        });
    }

    /** Puts {@code block} on the master of {@code key}'s slot (the one server when not a Cluster). */
    private CompletableFuture<Void> ensure(FunctionBlock block, String key) {
        return backend.commandsFor(key).thenCompose(node -> loader.ensure(node, block, backend.address()));
    }

    /**
     * Makes sure {@link #LOCK_LUA} is on every master: asks each for the block's version and puts
     * the block in the library where the function is missing. Completes when all have it, or with
     * the first failure translated, naming the node and what Redis answered (no functions, an ACL
     * user that may not call, read or load them, a library {@code padlock} that is not Padlock's).
     */
    static CompletableFuture<Void> prepare(RedisBackend backend) {
        return backend.masters().thenCompose(masters -> {
            List<CompletableFuture<Void>> each = new ArrayList<>();
            masters.forEach((address, node) -> each.add(prepare(backend, address, node)));
            return CompletableFuture.allOf(each.toArray(CompletableFuture[]::new));
        });
    }

    private static CompletableFuture<Void> prepare(RedisBackend backend, String address,
            RedisClusterAsyncCommands<String, String> node) {
        String probe = LOCK_LUA.versionFunction();
        return node.<String>fcall(probe, ScriptOutputType.VALUE).toCompletableFuture()
                .<Void>thenApply(version -> null)
                .exceptionallyCompose(failure -> {
                    if (!RedisErrors.isFunctionMissing(failure)) {
                        return CompletableFuture.failedFuture(backend.translate(failure,
                                "FCALL " + probe + " (is Padlock's functions library there?) on " + address));
                    }
                    return FunctionLoader.load(node, LOCK_LUA, address).exceptionallyCompose(loadFailure ->
                            CompletableFuture.failedFuture(backend.translate(loadFailure, "FUNCTION LOAD of Padlock's"
                                    + " functions library " + FunctionLibrary.NAME + " (its version " + LOCK_LUA.version()
                                    + " missing on " + address + ")")));
                });
    }
}
