package dev.padlock.internal.script;

import dev.padlock.RedisCommandException;
import dev.padlock.internal.redis.RedisErrors;
import dev.padlock.internal.redis.Utf8Codec;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.output.ObjectOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Puts a {@link FunctionBlock} into the library {@code padlock} on one master, keeping the blocks
 * other Padlock versions put there ({@link FunctionLibrary}): reads the library with
 * {@code FUNCTION LIST LIBRARYNAME padlock WITHCODE}; loads a library of this block alone where
 * there is none ({@code FUNCTION LOAD}: an "already exists" answer means another client loaded it
 * meanwhile, so it reads again); does nothing where the block is there; else loads the union with
 * {@code FUNCTION LOAD REPLACE}. Refuses, with a {@link RedisCommandException}, a library named
 * {@code padlock} that Padlock did not write. Needs {@code +function|list} and
 * {@code +function|load}.
 *
 * <p>The calls that find their function missing at the same moment wait for one such load per
 * master and block ({@link #ensure}), not one each: a {@code FUNCTION FLUSH} under a busy client
 * costs one read and one load.
 */
final class FunctionLoader {
    /** How often a load that met "already exists" reads again before it gives up. */
    private static final int ATTEMPTS = 3;

    /** Loads in flight, by master connection and block; each removed when done. */
    private final Map<Loading, CompletableFuture<Void>> loading = new ConcurrentHashMap<>();

    private record Loading(Object node, FunctionBlock block) {
    }

    /**
     * {@link #load(RedisClusterAsyncCommands, FunctionBlock, String)}, shared with the calls that
     * asked for the same block on the same master while it runs.
     */
    CompletableFuture<Void> ensure(RedisClusterAsyncCommands<String, String> node, FunctionBlock block, String address) {
        Loading key = new Loading(node, block);
        CompletableFuture<Void> started = new CompletableFuture<>();
        CompletableFuture<Void> running = loading.putIfAbsent(key, started);
        if (running != null) {
            return running;
        }
        CompletableFuture<Void> loaded;
        try {
            loaded = load(node, block, address, ATTEMPTS);
        } catch (RuntimeException failure) {
            loaded = CompletableFuture.failedFuture(failure); // never leave the shared load unfinished
        }
        loaded.whenComplete((done, failure) -> {
            loading.remove(key, started);
            if (failure != null) {
                started.completeExceptionally(failure);
            } else {
                started.complete(null);
            }
        });
        return started;
    }

    /** Puts {@code block} into the library {@code padlock} on {@code node} unless it is there. */
    static CompletableFuture<Void> load(RedisClusterAsyncCommands<String, String> node, FunctionBlock block,
            String address) {
        return load(node, block, address, ATTEMPTS);
    }

    private static CompletableFuture<Void> load(RedisClusterAsyncCommands<String, String> node, FunctionBlock block,
            String address, int attempts) {
        return code(node).thenCompose(code -> {
            if (code == null) {
                return load(node, FunctionLibrary.alone(block), false).exceptionallyCompose(failure ->
                        RedisErrors.isLibraryLoaded(failure) && attempts > 1
                                ? load(node, block, address, attempts - 1)
                                : CompletableFuture.failedFuture(failure));
            }
            FunctionLibrary library;
            try {
                library = FunctionLibrary.parse(code);
            } catch (IllegalArgumentException notOurs) {
                return CompletableFuture.failedFuture(new RedisCommandException("Redis at " + address + " has a"
                        + " functions library named " + FunctionLibrary.NAME + " that Padlock did not write ("
                        + notOurs.getMessage() + "): Padlock will not replace it. Delete or rename it (FUNCTION DELETE "
                        + FunctionLibrary.NAME + "), or use LockConfig.Scripting.EVAL"
                        + " (docs/user-guide/configuration.md, \"Scripting\")", notOurs));
            }
            return library.has(block) ? CompletableFuture.completedFuture(null) : load(node, library.with(block), true);
        });
    }

    /** The code of the library {@code padlock} on {@code node}; null when it has none. */
    private static CompletableFuture<@Nullable String> code(RedisClusterAsyncCommands<String, String> node) {
        CommandArgs<String, String> args = new CommandArgs<>(Utf8Codec.INSTANCE).add("LIST").add("LIBRARYNAME")
                .add(FunctionLibrary.NAME).add("WITHCODE");
        return node.dispatch(CommandType.FUNCTION, new ObjectOutput<>(Utf8Codec.INSTANCE), args).toCompletableFuture()
                .thenApply(FunctionLoader::libraryCode);
    }

    /**
     * The {@code library_code} of the library named {@code padlock} in a {@code FUNCTION LIST}
     * reply: a list of libraries, each a map (RESP3) or a list of names and values (RESP2).
     */
    static @Nullable String libraryCode(@Nullable Object reply) {
        if (!(reply instanceof List<?> libraries)) {
            return null;
        }
        for (Object library : libraries) {
            if (FunctionLibrary.NAME.equals(field(library, "library_name"))
                    && field(library, "library_code") instanceof String code) {
                return code;
            }
        }
        return null;
    }

    private static @Nullable Object field(@Nullable Object library, String name) {
        if (library instanceof Map<?, ?> map) {
            return map.get(name);
        }
        if (library instanceof List<?> pairs) {
            for (int i = 0; i + 1 < pairs.size(); i += 2) {
                if (name.equals(pairs.get(i))) {
                    return pairs.get(i + 1);
                }
            }
        }
        return null;
    }

    /** {@code FUNCTION LOAD [REPLACE] code}. */
    private static CompletableFuture<Void> load(RedisClusterAsyncCommands<String, String> node, String code,
            boolean replace) {
        return (replace ? node.functionLoad(code, true) : node.functionLoad(code)).toCompletableFuture()
                .thenApply(name -> null);
    }
}
