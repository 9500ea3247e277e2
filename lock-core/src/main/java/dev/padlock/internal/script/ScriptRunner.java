package dev.padlock.internal.script;

import dev.padlock.internal.redis.RedisBackend;
import dev.padlock.internal.redis.RedisErrors;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Runs {@link LuaScript}s with {@code EVALSHA}. When Redis does not know the script (a restart,
 * a {@code SCRIPT FLUSH}), the same call is made once more with {@code EVAL}, which also loads it;
 * that second call runs after whatever was sent meanwhile, so calls whose order matters use
 * {@link #runInOrder}.
 * Failures come back as Padlock exceptions naming the script, the first key and the address.
 */
public final class ScriptRunner {
    private final RedisBackend backend;
    private final boolean pinned;

    public ScriptRunner(RedisBackend backend) {
        this(backend, false);
    }

    private ScriptRunner(RedisBackend backend, boolean pinned) {
        this.backend = backend;
        this.pinned = pinned;
    }

    /**
     * A runner that sends each call on the connection to the master of its first key's slot
     * ({@link RedisBackend#commandsFor}), so that {@link #waitForReplicas} counts the
     * acknowledgements of exactly those calls. The same as this one on a single server.
     */
    public ScriptRunner pinned() {
        return backend.isCluster() ? new ScriptRunner(backend, true) : this;
    }

    private CompletableFuture<RedisClusterAsyncCommands<String, String>> commands(String key) {
        return pinned ? backend.commandsFor(key) : CompletableFuture.completedFuture(backend.commands());
    }

    /**
     * Sends {@code WAIT replicas timeout} on the connection that {@code key}'s calls use: the
     * number of replicas that acknowledged every write this connection sent before it.
     */
    public CompletableFuture<Long> waitForReplicas(String key, int replicas, long timeoutMillis) {
        return commands(key).thenCompose(c -> c.waitForReplication(replicas, timeoutMillis).toCompletableFuture())
                .exceptionallyCompose(failure -> CompletableFuture.failedFuture(
                        backend.translate(failure, "WAIT on '" + key + "'")));
    }

    /**
     * Runs {@code script} on {@code keys} and {@code args}.
     *
     * @param type how Redis's reply is read: {@code INTEGER} (nil is {@code null}) or
     *     {@code MULTI} for arrays
     */
    public <T> CompletableFuture<T> run(LuaScript script, ScriptOutputType type, String[] keys, String... args) {
        return run(script, type, null, keys, args);
    }

    /**
     * {@link #run(LuaScript, ScriptOutputType, String[], String...)}, its reply mapped by
     * {@code reply} in the same stage: the calls of an uncontended lock and unlock make one stage
     * each. A failure of {@code reply} fails the result, as {@code thenApply} would.
     */
    public <T, R> CompletableFuture<R> run(LuaScript script, ScriptOutputType type, @Nullable Function<T, R> reply, String[] keys,
            String... args) {
        return run(script.file(), script.body(), script.sha1(), script.sha1Bytes(), type, reply, null, keys, args);
    }

    /**
     * {@link #run(LuaScript, ScriptOutputType, Function, String[], String...)}, then
     * {@code handler} on the mapped reply or the failure, as {@code handle} would, in the same
     * stage: for a caller that would add a stage of its own to every call (a release's bookkeeping).
     */
    public <T, U, R> CompletableFuture<R> run(LuaScript script, ScriptOutputType type, Function<T, U> reply,
            @Nullable BiFunction<? super U, Throwable, R> handler, String[] keys, String... args) {
        return run(script.file(), script.body(), script.sha1(), script.sha1Bytes(), type, reply, handler, keys, args);
    }

    /**
     * Runs a script that is not one of lock-lua's (another Padlock module's own, such as
     * lock-shedlock's), as {@link #run(LuaScript, ScriptOutputType, String[], String...)} does.
     *
     * @param file the script's name, for messages
     * @param sha1 the SHA1 of {@code body}, in lower-case hex
     */
    public <T> CompletableFuture<T> run(String file, String body, String sha1, ScriptOutputType type, String[] keys,
            String... args) {
        return run(file, body, sha1, sha1.getBytes(StandardCharsets.US_ASCII), type, null, null, keys, args);
    }

    private <T, U, R> CompletableFuture<R> run(String file, String body, String sha1, byte[] sha1Bytes,
            ScriptOutputType type, @Nullable Function<T, U> reply, @Nullable BiFunction<? super U, Throwable, R> handler, String[] keys,
            String[] args) {
        if (!pinned) {
            // One stage on the command itself: this path runs twice per uncontended lock and unlock.
            ScriptCall<T, R> call;
            CompletableFuture<T> sent;
            try {
                RedisClusterAsyncCommands<String, String> commands = backend.commands();
                call = new ScriptCall<>(this, commands, file, body, type, reply, handler, keys, args);
                sent = ScriptCall.evalsha(commands, sha1Bytes, type, keys, args);
            } catch (RuntimeException failure) {
                return mapped(this.<T>translated(failure, file, keys), reply, handler);
            }
            sent.whenComplete(call);
            return call;
        }
        return mapped(commands(keys[0]).thenCompose(c -> c.<T>evalsha(sha1, type, keys, args).toCompletableFuture()
                .exceptionallyCompose(failure -> afterFailure(failure, c, file, body, type, keys, args))), reply, handler);
    }

    /** {@code sent} mapped by {@code reply}, then handled by {@code handler}, each when not null, in stages. */
    @SuppressWarnings("unchecked")
    private static <T, U, R> CompletableFuture<R> mapped(CompletableFuture<T> sent, @Nullable Function<T, U> reply,
            @Nullable BiFunction<? super U, Throwable, R> handler) {
        CompletableFuture<U> mapped = reply == null ? (CompletableFuture<U>) sent : sent.thenApply(reply);
        return handler == null ? (CompletableFuture<R>) mapped : mapped.handle(handler);
    }

    /** On {@code NOSCRIPT}, the same call with {@code EVAL}; any failure translated. */
    <T> CompletableFuture<T> afterFailure(Throwable failure, RedisClusterAsyncCommands<String, String> commands,
            String file, String body, ScriptOutputType type, String[] keys, String[] args) {
        if (RedisErrors.unwrap(failure) instanceof RedisNoScriptException) {
            return commands.<T>eval(body, type, keys, args).toCompletableFuture()
                    .exceptionallyCompose(again -> translated(again, file, keys));
        }
        return translated(failure, file, keys);
    }

    private <T> CompletableFuture<T> translated(Throwable failure, String file, String[] keys) {
        return CompletableFuture.failedFuture(backend.translate(failure, file + " on '" + keys[0] + "'"));
    }

    /**
     * Runs {@code script} with {@code EVAL}, body included: there is no {@code NOSCRIPT} answer and
     * no second attempt, so the call runs exactly in the order it was sent among this connection's
     * commands. For calls that later commands rely on having run first (a hand-off the successor
     * acts on before the reply, a renewal that must land before a release): with {@link #run}, a
     * {@code NOSCRIPT} retry would run after commands sent meanwhile. Costs the script's bytes on
     * the wire; Redis keeps the compiled script cached either way.
     */
    public <T> CompletableFuture<T> runInOrder(LuaScript script, ScriptOutputType type, String[] keys, String... args) {
        return commands(keys[0]).thenCompose(c -> c.<T>eval(script.body(), type, keys, args).toCompletableFuture())
                .exceptionallyCompose(failure -> CompletableFuture.failedFuture(
                        backend.translate(failure, script.file() + " on '" + keys[0] + "'")));
    }

    /** The address for messages. */
    public String address() {
        return backend.address();
    }
}
