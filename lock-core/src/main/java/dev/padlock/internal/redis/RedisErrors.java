package dev.padlock.internal.redis;

import dev.padlock.PadlockException;
import dev.padlock.RedisCommandException;
import dev.padlock.RedisUnavailableException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The one place that turns Lettuce failures into Padlock exceptions whose message names the
 * server address and the operation; a failed connection also names its first real cause
 * ({@link ConnectFailures}).
 */
public final class RedisErrors {
    /** Redis's {@code READONLY} error, alone or inside a script's error ({@code ...: -READONLY You can't ...}). */
    private static final Pattern READONLY = Pattern.compile("(^|[\\s:-])READONLY\\b");

    private RedisErrors() {
    }

    /**
     * The exception to give a caller for {@code failure}, which happened during
     * {@code operation} against {@code address}. Padlock's own exceptions and the lock misuse
     * exceptions ({@link IllegalMonitorStateException}, {@link IllegalStateException}) pass as
     * they are.
     */
    public static RuntimeException translate(Throwable failure, String operation, String address) {
        return translate(failure, operation, address, ConnectFailures.UNCONFIGURED);
    }

    /**
     * As {@link #translate(Throwable, String, String)}, with a connection failure told as
     * {@code connects} tells it: what failed first (authentication, database selection, trust
     * store, TLS handshake), then that Redis could not be reached.
     */
    static RuntimeException translate(Throwable failure, String operation, String address, ConnectFailures connects) {
        Throwable cause = unwrap(failure);
        if (cause instanceof PadlockException || cause instanceof IllegalMonitorStateException
                || cause instanceof IllegalStateException || cause instanceof IllegalArgumentException
                || cause instanceof CancellationException) {
            return (RuntimeException) cause;
        }
        String where = operation + " at " + address;
        if (cause instanceof RedisCommandTimeoutException) {
            return new RedisUnavailableException(where + " timed out: " + cause.getMessage(), cause);
        }
        if (cause instanceof RedisConnectionException || cause instanceof RedisCommandInterruptedException
                || cause instanceof java.io.IOException) {
            return new RedisUnavailableException(where + " failed: " + connects.describe(cause), cause);
        }
        if (cause instanceof RedisCommandExecutionException && isReadOnly(cause)) {
            // not "not acquired" and not a lasting error: the node became a replica, the client moves
            return new RedisUnavailableException(where + " failed: the node is a replica now, reconnecting to the"
                    + " master: Redis answered " + cause.getMessage(), cause);
        }
        if (cause instanceof RedisCommandExecutionException) {
            return new RedisCommandException(where + " failed: Redis answered " + cause.getMessage()
                    + ScriptingErrors.fix(cause.getMessage()), cause);
        }
        if (cause instanceof RedisException) {
            return new RedisUnavailableException(where + " failed: "
                    + connects.specific(cause).orElse(cause.getMessage()), cause);
        }
        return new PadlockException(where + " failed: " + cause, cause);
    }

    /**
     * {@code failure}, from another thread, as an exception to throw on the caller's thread with
     * the caller's stack trace: lock misuse keeps its type and message, a Redis failure names the
     * public {@code operation} before the failed step, and other Padlock exceptions keep their
     * type. Null for anything else, which the caller translates with its own context.
     */
    public static @Nullable RuntimeException forCaller(Throwable failure, String operation) {
        Throwable cause = unwrap(failure);
        if (cause instanceof IllegalMonitorStateException) {
            IllegalMonitorStateException e = new IllegalMonitorStateException(cause.getMessage());
            e.initCause(cause);
            return e;
        }
        if (cause instanceof RedisUnavailableException) {
            return new RedisUnavailableException(operation + ": " + cause.getMessage(), cause);
        }
        if (cause instanceof RedisCommandException) {
            return new RedisCommandException(operation + ": " + cause.getMessage(), cause);
        }
        if (cause instanceof PadlockException || cause instanceof CancellationException) {
            return (RuntimeException) cause;
        }
        if (cause instanceof IllegalStateException) {
            return new IllegalStateException(operation + ": " + cause.getMessage(), cause);
        }
        return null;
    }

    /** Whether {@code failure} is Redis's {@code READONLY} reply: a write reached a node that is a replica. */
    static boolean isReadOnly(Throwable failure) {
        Throwable cause = unwrap(failure);
        for (int depth = 0; cause != null && depth < 4; depth++, cause = cause.getCause()) {
            if (cause instanceof RedisCommandExecutionException && cause.getMessage() != null
                    && READONLY.matcher(cause.getMessage()).find()) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code failure} is an {@code FCALL}'s answer that the function is not loaded there. */
    public static boolean isFunctionMissing(Throwable failure) {
        return ScriptingErrors.isFunctionMissing(unwrap(failure));
    }

    /** Whether {@code failure} is a {@code FUNCTION LOAD}'s answer that the library is loaded already. */
    public static boolean isLibraryLoaded(Throwable failure) {
        return ScriptingErrors.isLibraryLoaded(unwrap(failure));
    }

    /**
     * The cause of a failed {@code Future.get()}: never null from a {@code CompletableFuture}, and the
     * exception itself should some other future leave it out.
     */
    public static Throwable causeOf(ExecutionException e) {
        Throwable cause = e.getCause();
        return cause != null ? cause : e;
    }

    /** The cause inside {@link CompletionException} and {@link ExecutionException} wrappers. */
    public static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
