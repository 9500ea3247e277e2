package dev.padlock.internal;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RedisUnavailableException;
import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.base.Require;
import dev.padlock.internal.redis.RedisBackend;
import dev.padlock.internal.script.ScriptRunner;
import dev.padlock.spi.RedisAccess;
import dev.padlock.spi.RedisConnection;
import dev.padlock.spi.Script;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timer;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The SPI's {@link RedisAccess} over a {@link RedisBackend}: a client's (closing does nothing; the
 * client owns it) or one opened for a tool (closing closes it).
 */
public final class SpiAccess implements RedisConnection {
    private final RedisBackend backend;
    private final ScriptRunner scripts;
    private final Duration commandTimeout;
    /** The timer of a tool's connection, which closing stops; null for a client's. */
    private final @Nullable Timer ownTimer;
    /** The clock of the client, or of the tool's connection: times the round trip of a ping. */
    private final EngineClock clock;

    private SpiAccess(RedisBackend backend, ScriptRunner scripts, Duration commandTimeout, @Nullable Timer ownTimer,
            EngineClock clock) {
        this.clock = clock;
        this.backend = backend;
        this.scripts = scripts;
        this.commandTimeout = commandTimeout;
        this.ownTimer = ownTimer;
    }

    /** The access of {@code client}; see {@link RedisAccess#of}. */
    public static RedisAccess of(LockClient client) {
        if (client instanceof DeferredClient deferred) {
            return new Deferred(deferred);
        }
        PadlockClient padlock = padlock(client);
        return new SpiAccess(padlock.backend(), padlock.scripts(),
                Duration.ofMillis(padlock.commandTimeoutMillis()), null, padlock.clock());
    }

    /** Connections of their own, timed on {@code clock}; see {@link RedisAccess#open}. */
    public static RedisConnection open(LockConfig config, EngineClock clock) {
        RedisBackend backend = RedisBackend.open(config);
        // its own timer, for the calls a slot's migration refuses (TRYAGAIN), stopped when it closes
        HashedWheelTimer timer = new HashedWheelTimer(new DefaultThreadFactory("padlock-tool-timer", true),
                PadlockClient.TIMER_TICK_MILLIS, TimeUnit.MILLISECONDS, 64);
        ScriptRunner scripts = new ScriptRunner(backend, config.scripting(), timer, clock, config.commandTimeout().toMillis());
        return new SpiAccess(backend, scripts, config.commandTimeout(), timer, clock);
    }

    /**
     * The clock of {@code client} (a deferred client's, connected or not), as a reading in
     * nanoseconds; see {@link dev.padlock.spi.OutageLog}.
     *
     * @throws IllegalArgumentException when {@code client} was not made by Padlock's factories
     */
    public static LongSupplier nanoTime(LockClient client) {
        EngineClock clock = client instanceof DeferredClient deferred ? deferred.clock() : padlock(client).clock();
        return clock::nanoTime;
    }

    /** See {@link dev.padlock.spi.PadlockInfo#renewedLeases}. */
    public static OptionalInt renewedLeases(LockClient client) {
        if (client instanceof DeferredClient deferred) {
            return deferred.connected().map(c -> OptionalInt.of(c.renewedLocks())).orElse(OptionalInt.of(0));
        }
        return client instanceof PadlockClient padlock ? OptionalInt.of(padlock.renewedLocks()) : OptionalInt.empty();
    }

    /** See {@link dev.padlock.spi.LeaseExtension#extend}. */
    public static CompletableFuture<Boolean> extendLease(LockClient client, String lockName, long threadId,
            long leaseMillis) {
        Require.lockName(lockName);
        PadlockClient padlock;
        try {
            padlock = client instanceof DeferredClient deferred
                    ? deferred.require("lease extension of '" + lockName + "'") : padlock(client);
        } catch (RedisUnavailableException notYet) {
            return CompletableFuture.failedFuture(notYet);
        }
        return padlock.extendLease(lockName, threadId, leaseMillis);
    }

    private static PadlockClient padlock(LockClient client) {
        if (client instanceof PadlockClient padlock) {
            return padlock;
        }

        throw new IllegalArgumentException("client must be made by LockClient.connect or LockClient.create, got "
                + (client == null ? "null" : client.getClass().getName()));
    }

    @Override
    public String address() {
        return backend.address();
    }

    @Override
    public Duration commandTimeout() {
        return commandTimeout;
    }

    @Override
    public <T> CompletableFuture<T> run(Script script, ScriptOutputType type, String[] keys, String... args) {
        if (keys.length == 0) {
            throw new IllegalArgumentException("a script needs at least one key (its slot on a Cluster)");
        }
        return scripts.run(script, type, keys, args);
    }

    @Override
    public CompletableFuture<Duration> ping() {
        long sent = clock.nanoTime();
        return backend.commands().ping().toCompletableFuture()
                .thenApply(pong -> Duration.ofNanos(clock.nanoTime() - sent))
                .exceptionallyCompose(failure -> CompletableFuture.failedFuture(backend.translate(failure, "PING")));
    }

    @Override
    public RedisClusterAsyncCommands<String, String> commands() {
        return backend.commands();
    }

    @Override
    public CompletableFuture<RedisClusterAsyncCommands<String, String>> commandsFor(String key) {
        return backend.commandsFor(key);
    }

    @Override
    public boolean isCluster() {
        return backend.isCluster();
    }

    @Override
    public boolean isSharded() {
        return backend.isSharded();
    }

    @Override
    public RuntimeException translate(Throwable failure, String operation) {
        return backend.translate(failure, operation);
    }

    @Override
    public void close() {
        if (ownTimer != null) {
            backend.close();
            ownTimer.stop();
        }
    }

    /**
     * The access of a client that started without Redis: each call goes to the connected client's,
     * and fails (a failed future, or a {@link dev.padlock.RedisUnavailableException}) until then.
     */
    private static final class Deferred implements RedisAccess {
        private final DeferredClient client;

        Deferred(DeferredClient client) {
            this.client = client;
        }

        private RedisAccess now() {
            return SpiAccess.of(client.require("Redis access"));
        }

        @Override
        public String address() {
            return client.connected().map(c -> c.backend().address()).orElseGet(client::target);
        }

        @Override
        public Duration commandTimeout() {
            return client.config().commandTimeout();
        }

        @Override
        public <T> CompletableFuture<T> run(Script script, ScriptOutputType type, String[] keys, String... args) {
            try {
                return now().run(script, type, keys, args);
            } catch (dev.padlock.RedisUnavailableException notYet) {
                return CompletableFuture.failedFuture(notYet);
            }
        }

        @Override
        public CompletableFuture<Duration> ping() {
            try {
                return now().ping();
            } catch (dev.padlock.RedisUnavailableException notYet) {
                return CompletableFuture.failedFuture(notYet);
            }
        }

        @Override
        public RedisClusterAsyncCommands<String, String> commands() {
            return now().commands();
        }

        @Override
        public CompletableFuture<RedisClusterAsyncCommands<String, String>> commandsFor(String key) {
            return now().commandsFor(key);
        }

        @Override
        public boolean isCluster() {
            return !client.config().clusterUris().isEmpty();
        }

        @Override
        public boolean isSharded() {
            return now().isSharded();
        }

        @Override
        public RuntimeException translate(Throwable failure, String operation) {
            return client.connected().map(c -> c.backend().translate(failure, operation))
                    .orElseGet(() -> new dev.padlock.RedisUnavailableException(operation + " at " + client.target()
                            + " failed: " + failure, failure));
        }
    }
}
