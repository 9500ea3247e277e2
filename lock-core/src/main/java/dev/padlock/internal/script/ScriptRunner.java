package dev.padlock.internal.script;

import dev.padlock.LockConfig;
import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.redis.RedisBackend;
import dev.padlock.spi.Script;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.netty.util.Timer;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Runs {@link LuaScript}s, one command a call, by the client's {@link ScriptRoute}: {@code EVALSHA}
 * ({@link LockConfig.Scripting#EVAL}) or {@code FCALL} of Padlock's functions library
 * ({@link LockConfig.Scripting#FUNCTIONS}). When Redis does not know the script (a restart, a
 * {@code SCRIPT FLUSH} or {@code FUNCTION FLUSH}, a failover), the script is loaded and the same
 * call made once more; that second call runs after whatever was sent meanwhile, so calls whose
 * order matters use {@link #runInOrder}. A call refused with {@code TRYAGAIN} (a Cluster slot in
 * mid-migration) is sent again, within the command timeout, as {@link TryAgain} says; one in
 * order is not.
 * Failures come back as Padlock exceptions naming the script, the first key and the address.
 */
public final class ScriptRunner {
    private final RedisBackend backend;
    private final ScriptRoute route;
    private final TryAgain tryAgain;
    private final boolean pinned;

    /**
     * A runner that runs scripts as {@code scripting} says; a call refused with {@code TRYAGAIN}
     * (a Cluster slot in mid-migration) is sent again on {@code timer} for up to
     * {@code commandTimeoutMillis} ({@link TryAgain}).
     */
    public ScriptRunner(RedisBackend backend, LockConfig.Scripting scripting, Timer timer, EngineClock clock,
            long commandTimeoutMillis) {
        this(backend, switch (scripting) {
            case EVAL -> EvalRoute.INSTANCE;
            case FUNCTIONS -> new FunctionRoute(backend);
        }, new TryAgain(timer, clock, commandTimeoutMillis), false);
    }

    private ScriptRunner(RedisBackend backend, ScriptRoute route, TryAgain tryAgain, boolean pinned) {
        this.backend = backend;
        this.route = route;
        this.tryAgain = tryAgain;
        this.pinned = pinned;
    }

    /**
     * Readies {@code backend} for {@code scripting} when a client connects: with
     * {@link LockConfig.Scripting#FUNCTIONS}, loads Padlock's functions library on every master
     * that lacks it (nothing to do for {@code EVAL}, whose scripts load at their first call).
     * Completes exceptionally with a Padlock exception that says why a server cannot serve them:
     * no functions (before Redis 7), or an ACL user that may not call or load them.
     */
    public static CompletableFuture<Void> prepare(RedisBackend backend, LockConfig.Scripting scripting) {
        return switch (scripting) {
            case EVAL -> CompletableFuture.completedFuture(null);
            case FUNCTIONS -> FunctionRoute.prepare(backend);
        };
    }

    /**
     * A runner that sends each call on the connection to the master of its first key's slot
     * ({@link RedisBackend#commandsFor}), so that {@link #waitForReplicas} counts the
     * acknowledgements of exactly those calls. The same as this one on a single server.
     */
    public ScriptRunner pinned() {
        return backend.isCluster() ? new ScriptRunner(backend, route, tryAgain, true) : this;
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
        return run(script.script(), route.id(script), type, reply, null, keys, args);
    }

    /**
     * {@link #run(LuaScript, ScriptOutputType, Function, String[], String...)}, then
     * {@code handler} on the mapped reply or the failure, as {@code handle} would, in the same
     * stage: for a caller that would add a stage of its own to every call (a release's bookkeeping).
     */
    public <T, U, R> CompletableFuture<R> run(LuaScript script, ScriptOutputType type, Function<T, U> reply,
            @Nullable BiFunction<? super U, Throwable, R> handler, String[] keys, String... args) {
        return run(script.script(), route.id(script), type, reply, handler, keys, args);
    }

    /**
     * Runs a script that is not one of lock-lua's (another Padlock module's own, such as
     * lock-shedlock's), as {@link #run(LuaScript, ScriptOutputType, String[], String...)} does;
     * with functions, a function of its own in the library {@code padlock}, added at its first call
     * on each master.
     */
    public <T> CompletableFuture<T> run(Script script, ScriptOutputType type, String[] keys, String... args) {
        return run(script, route.id(script), type, null, null, keys, args);
    }

    private <T, U, R> CompletableFuture<R> run(Script script, byte[] id, ScriptOutputType type,
            @Nullable Function<T, U> reply, @Nullable BiFunction<? super U, Throwable, R> handler, String[] keys,
            String[] args) {
        if (!pinned) {
            // One stage on the command itself: this path runs twice per uncontended lock and unlock.
            ScriptCall<T, R> call;
            CompletableFuture<T> sent;
            try {
                RedisClusterAsyncCommands<String, String> commands = backend.commands();
                call = new ScriptCall<>(this, commands, script, id, type, reply, handler, keys, args);
                sent = route.send(commands, id, type, keys, args);
            } catch (RuntimeException failure) {
                return mapped(this.<T>translated(failure, script.name(), keys), reply, handler);
            }
            sent.whenComplete(call);
            return call;
        }
        return mapped(commands(keys[0]).thenCompose(c -> route.<T>send(c, id, type, keys, args)
                .exceptionallyCompose(failure -> afterFailure(failure, c, script, id, type, keys, args))), reply, handler);
    }

    /** {@code sent} mapped by {@code reply}, then handled by {@code handler}, each when not null, in stages. */
    @SuppressWarnings("unchecked")
    private static <T, U, R> CompletableFuture<R> mapped(CompletableFuture<T> sent, @Nullable Function<T, U> reply,
            @Nullable BiFunction<? super U, Throwable, R> handler) {
        CompletableFuture<U> mapped = reply == null ? (CompletableFuture<U>) sent : sent.thenApply(reply);
        return handler == null ? (CompletableFuture<R>) mapped : mapped.handle(handler);
    }

    /**
     * After a failed call: when Redis did not know the script, the same call once more
     * ({@link ScriptRoute#retry}); when it said {@code TRYAGAIN}, the same call again after a
     * pause, within {@link TryAgain}'s window; any other failure translated.
     */
    <T> CompletableFuture<T> afterFailure(Throwable failure, RedisClusterAsyncCommands<String, String> commands,
            Script script, byte[] id, ScriptOutputType type, String[] keys, String[] args) {
        return afterFailure(failure, commands, script, id, type, keys, args, 0, 0, false);
    }

    /**
     * @param refusals the {@code TRYAGAIN}s so far
     * @param deadline the end of their window, once there was one
     * @param loaded whether the script was loaded again already
     */
    private <T> CompletableFuture<T> afterFailure(Throwable failure, RedisClusterAsyncCommands<String, String> commands,
            Script script, byte[] id, ScriptOutputType type, String[] keys, String[] args, int refusals, long deadline,
            boolean loaded) {
        if (TryAgain.isTryAgain(failure)) {
            long until = refusals == 0 ? tryAgain.deadline() : deadline;
            CompletableFuture<Void> pause = tryAgain.pause(refusals + 1, until);
            if (pause != null) {
                return pause.thenCompose(ignored -> {
                    CompletableFuture<T> sent;
                    try {
                        sent = route.send(commands, id, type, keys, args);
                    } catch (RuntimeException closed) {
                        return translated(closed, script.name(), keys);
                    }
                    return sent.exceptionallyCompose(again -> afterFailure(again, commands, script, id, type, keys, args,
                            refusals + 1, until, loaded));
                });
            }
        } else if (!loaded) {
            CompletableFuture<T> again = route.retry(failure, commands, script, id, type, keys, args);
            if (again != null) {
                return again.exceptionallyCompose(stillFailed -> afterFailure(stillFailed, commands, script, id, type,
                        keys, args, refusals, deadline, true));
            }
        }
        return translated(failure, script.name(), keys);
    }

    private <T> CompletableFuture<T> translated(Throwable failure, String file, String[] keys) {
        return CompletableFuture.failedFuture(backend.translate(failure, file + " on '" + keys[0] + "'"));
    }

    /**
     * Runs {@code script} with no second attempt, so the call runs exactly in the order it was sent
     * among this connection's commands, or not at all. For calls that later commands rely on having
     * run first (a hand-off the successor acts on before the reply, a renewal that must land before
     * a release): with {@link #run}, a retry would run after commands sent meanwhile. With
     * {@code EVAL}, an {@code EVAL} with the body, which never meets {@code NOSCRIPT} (it costs the
     * script's bytes on the wire; Redis keeps the compiled script cached either way); with
     * functions, an {@code FCALL} that fails when the library is missing (it is loaded again for
     * the calls that follow).
     */
    public <T> CompletableFuture<T> runInOrder(LuaScript script, ScriptOutputType type, String[] keys, String... args) {
        return commands(keys[0]).thenCompose(c -> route.<T>sendInOrder(c, script, type, keys, args))
                .exceptionallyCompose(failure -> CompletableFuture.failedFuture(
                        backend.translate(failure, script.file() + " on '" + keys[0] + "'")));
    }

    /** The address for messages. */
    public String address() {
        return backend.address();
    }
}
