package dev.padlock.internal.script;

import static dev.padlock.internal.base.Nulls.castToNonNull;

import dev.padlock.internal.redis.Utf8Codec;
import dev.padlock.spi.Script;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.output.BooleanOutput;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.output.ObjectOutput;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.output.ValueOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * One {@code EVALSHA} or {@code FCALL} of a {@link ScriptRunner}, and its result: it completes with
 * the reply, mapped, or with the failure translated, after the second attempt that a script Redis
 * does not know calls for ({@link ScriptRoute#retry}); or with what a handler makes of either, as
 * {@code handle} would. The call is its own result, so a script call costs the command and one stage.
 *
 * <p>{@link #dispatch} builds the command as Lettuce's own {@code evalsha} and {@code fcall} do,
 * with the digest or function name and the key count as prepared bytes rather than strings
 * encoded on every call.
 */
final class ScriptCall<T, R> extends CompletableFuture<R> implements BiConsumer<T, Throwable> {
    /** The key counts as {@code EVALSHA} sends them; Padlock's scripts take at most a few keys. */
    private static final byte[][] KEY_COUNTS = new byte[16][];

    static {
        for (int i = 0; i < KEY_COUNTS.length; i++) {
            KEY_COUNTS[i] = Integer.toString(i).getBytes(StandardCharsets.US_ASCII);
        }
    }

    private final ScriptRunner runner;
    private final RedisClusterAsyncCommands<String, String> commands;
    private final Script script;
    private final byte[] id;
    private final ScriptOutputType type;
    private final @Nullable Function<T, ?> reply;
    private final @Nullable BiFunction<Object, Throwable, R> handler;
    private final String[] keys;
    private final String[] args;

    /**
     * @param reply maps the reply; null: the reply as it is
     * @param handler what the result is, from the mapped reply or the failure, as {@code handle}
     *     has it (a failure wrapped in a {@link CompletionException}); null: the mapped reply, or
     *     the failure
     */
    @SuppressWarnings("unchecked")
    ScriptCall(ScriptRunner runner, RedisClusterAsyncCommands<String, String> commands, Script script, byte[] id,
            ScriptOutputType type, @Nullable Function<T, ?> reply, @Nullable BiFunction<?, Throwable, R> handler, String[] keys,
            String[] args) {
        this.runner = runner;
        this.commands = commands;
        this.script = script;
        this.id = id;
        this.type = type;
        this.reply = reply;
        this.handler = (BiFunction<Object, Throwable, R>) handler;
        this.keys = keys;
        this.args = args;
    }

    /** Sends {@code EVALSHA sha1 numkeys keys... args...} or {@code FCALL function numkeys keys... args...}. */
    static <T> CompletableFuture<T> dispatch(RedisClusterAsyncCommands<String, String> commands, CommandType command,
            byte[] id, ScriptOutputType type, String[] keys, String[] args) {
        RedisCodec<String, String> codec = Utf8Codec.INSTANCE;
        CommandArgs<String, String> arguments = new CommandArgs<>(codec).add(id);
        if (keys.length < KEY_COUNTS.length) {
            arguments.add(KEY_COUNTS[keys.length]);
        } else {
            arguments.add(keys.length);
        }
        arguments.addKeys(keys).addValues(args);
        return commands.dispatch(command, ScriptCall.<T>output(codec, type), arguments).toCompletableFuture();
    }

    /** How Lettuce reads a script's reply of {@code type}, as its own {@code evalsha} does. */
    @SuppressWarnings("unchecked")
    private static <T> CommandOutput<String, String, T> output(RedisCodec<String, String> codec, ScriptOutputType type) {
        return (CommandOutput<String, String, T>) switch (type) {
            case BOOLEAN -> new BooleanOutput<>(codec);
            case INTEGER -> new IntegerOutput<>(codec);
            case STATUS -> new StatusOutput<>(codec);
            case MULTI -> new NestedMultiOutput<>(codec);
            case VALUE -> new ValueOutput<>(codec);
            case OBJECT -> new ObjectOutput<>(codec);
        };
    }

    /** The call's reply or failure. */
    @Override
    public void accept(T value, Throwable failure) {
        if (failure == null) {
            answer(value);
            return;
        }
        runner.<T>afterFailure(failure, commands, script, id, type, keys, args).whenComplete((again, stillFailed) -> {
            if (stillFailed == null) {
                answer(again);
            } else {
                fail(stillFailed);
            }
        });
    }

    @SuppressWarnings("unchecked")
    private void answer(T value) {
        Object mapped;
        try {
            mapped = reply == null ? value : reply.apply(value);
        } catch (RuntimeException e) {
            fail(e);
            return;
        }
        if (handler == null) {
            complete((R) mapped);
        } else {
            handled(mapped, null);
        }
    }

    /** Fails as the stages it replaces did: wrapped in a {@link CompletionException}. */
    private void fail(Throwable failure) {
        if (handler == null) {
            completeExceptionally(wrapped(failure));
        } else {
            handled(null, wrapped(failure));
        }
    }

    /** The handler's result, or its exception, becomes the result. */
    private void handled(@Nullable Object mapped, @Nullable Throwable failure) {
        R handled;
        try {
            handled = castToNonNull(handler).apply(mapped, failure); // called with a handler only
        } catch (RuntimeException e) {
            completeExceptionally(wrapped(e));
            return;
        }
        complete(handled);
    }

    private static CompletionException wrapped(Throwable failure) {
        return failure instanceof CompletionException completion ? completion : new CompletionException(failure);
    }
}
