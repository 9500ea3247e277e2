package dev.padlock.internal;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RFencedLock;
import dev.padlock.RLock;
import dev.padlock.RReadWriteLock;
import dev.padlock.RPermitExpirableSemaphore;
import dev.padlock.RSemaphore;
import dev.padlock.RedisUnavailableException;
import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.base.RedisUris;
import dev.padlock.internal.base.Require;
import dev.padlock.internal.composite.CompositeServices;
import dev.padlock.internal.composite.MultiLock;
import dev.padlock.internal.composite.RedLock;
import dev.padlock.spi.OutageLog;
import io.netty.util.HashedWheelTimer;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client that started while Redis could not be reached ({@link LockConfig#startWithoutRedis()}):
 * it connects in the background, once a second, and hands out lock objects at once. Until it is
 * connected every call on them fails at once with a {@link RedisUnavailableException} (a
 * future-returning call with a failed future); from then on each forwards to the lock of the
 * connected {@link PadlockClient}, which has this client's id. Only the connection is deferred:
 * nothing is queued, and nothing is told it holds before Redis said so.
 */
public final class DeferredClient implements LockClient {
    private static final Logger log = LoggerFactory.getLogger(DeferredClient.class);
    static final long RETRY_MILLIS = 1_000;

    private final LockConfig config;
    private final String clientId = UUID.randomUUID().toString();
    private final ScheduledExecutorService connector = Executors.newSingleThreadScheduledExecutor(
            new DefaultThreadFactory("padlock-connect", true));
    /** This client's clock, and the connected client's. */
    private final EngineClock clock;
    private final OutageLog outages;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final long startedNanos;
    /** Times the rounds of red locks made before the connection (its thread starts with the first). */
    private final HashedWheelTimer compositeTimer = new HashedWheelTimer(
            new DefaultThreadFactory("padlock-deferred-timer", true), 5, TimeUnit.MILLISECONDS, 64);
    /** What this client's composite locks share: its clock and timer, and its owners' turns. */
    private final CompositeServices composites;
    private volatile @Nullable PadlockClient connected;
    private volatile @Nullable Throwable lastFailure;

    private DeferredClient(LockConfig config, EngineClock clock) {
        this.config = config;
        this.clock = clock;
        this.outages = new OutageLog(log, clock::nanoTime);
        this.startedNanos = clock.nanoTime();
        this.composites = CompositeServices.of(null, clock, compositeTimer);
    }

    /**
     * The connected client when Redis answers now, else a client that connects in the background;
     * either on {@code clock}.
     */
    public static LockClient start(LockConfig config, EngineClock clock) {
        DeferredClient deferred = new DeferredClient(config, clock);
        try {
            return PadlockClient.open(config, deferred.clientId, clock);
        } catch (RedisUnavailableException unreachable) {
            deferred.failed(unreachable);
            deferred.connector.schedule(deferred::connect, RETRY_MILLIS, TimeUnit.MILLISECONDS);
            return deferred;
        }
    }

    private void connect() {
        if (closed.get()) {
            return;
        }
        try {
            PadlockClient client = PadlockClient.open(config, clientId, clock);
            connected = client;
            outages.succeeded(target(), "connecting");
            if (closed.get()) {
                client.close();
            } else {
                connector.shutdown();
            }
        } catch (RuntimeException failure) {
            failed(failure);
            if (!closed.get()) {
                connector.schedule(this::connect, RETRY_MILLIS, TimeUnit.MILLISECONDS);
            }
        }
    }

    private void failed(RuntimeException failure) {
        lastFailure = failure;
        outages.failed(target(), "connecting (the client started without Redis; trying again every "
                + RETRY_MILLIS + " ms, and lock calls fail at once meanwhile)", failure);
    }

    /** This client's clock. */
    EngineClock clock() {
        return clock;
    }

    LockConfig config() {
        return config;
    }

    /** The URI, or the seed URIs, with their passwords hidden: it goes into messages and logs. */
    String target() {
        return config.redisUri().map(RedisUris::redact)
                .orElseGet(() -> config.clusterUris().stream().map(RedisUris::redact).collect(Collectors.joining(",")));
    }

    /** The connected client, once there is one. */
    public Optional<PadlockClient> connected() {
        return Optional.ofNullable(connected);
    }

    /** The connected client, or a {@link RedisUnavailableException} about {@code operation} that says why not. */
    PadlockClient require(String operation) {
        PadlockClient client = connected;
        if (client != null) {
            return client;
        }
        Require.state(!closed.get(), "the LockClient is closed");
        Throwable cause = lastFailure;
        // the last attempt's cause first: it names what failed (authentication, TLS, the address)
        throw new RedisUnavailableException(operation + " at " + target() + ": not connected yet"
                + (cause == null ? "" : ", last attempt: " + cause.getMessage()) + " (the client started without Redis "
                + TimeUnit.NANOSECONDS.toSeconds(clock.nanoTime() - startedNanos)
                + " s ago and connects in the background)", cause);
    }

    @Override
    public String getId() {
        return clientId;
    }

    @Override
    public RLock getLock(String name) {
        return lock(RLock.class, Require.lockName(name), client -> client.getLock(name));
    }

    @Override
    public RLock getSpinLock(String name) {
        return lock(RLock.class, Require.lockName(name), client -> client.getSpinLock(name));
    }

    @Override
    public RLock getFairLock(String name) {
        return lock(RLock.class, Require.lockName(name), client -> client.getFairLock(name));
    }

    @Override
    public RFencedLock getFencedLock(String name) {
        return lock(RFencedLock.class, Require.lockName(name), client -> client.getFencedLock(name));
    }

    @Override
    public RSemaphore getSemaphore(String name) {
        return lock(RSemaphore.class, Require.lockName(name), client -> client.getSemaphore(name));
    }

    @Override
    public RPermitExpirableSemaphore getPermitExpirableSemaphore(String name) {
        return lock(RPermitExpirableSemaphore.class, Require.lockName(name),
                client -> client.getPermitExpirableSemaphore(name));
    }

    @Override
    public RReadWriteLock getReadWriteLock(String name) {
        Require.lockName(name);
        RLock read = lock(RLock.class, name, client -> client.getReadWriteLock(name).readLock());
        RLock write = lock(RLock.class, name, client -> client.getReadWriteLock(name).writeLock());
        return new RReadWriteLock() {
            @Override
            public String getName() {
                return name;
            }

            @Override
            public RLock readLock() {
                return read;
            }

            @Override
            public RLock writeLock() {
                return write;
            }
        };
    }

    @Override
    public RLock getMultiLock(RLock... locks) {
        return MultiLock.of(composites, locks);
    }

    @Override
    public RLock getRedLock(RLock... locks) {
        return RedLock.of(composites, locks);
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            connector.shutdownNow();
            compositeTimer.stop();
            PadlockClient client = connected;
            if (client != null) {
                client.close();
            }
        }
    }

    @Override
    public String toString() {
        return "DeferredClient[" + clientId + (connected == null ? ", connecting to " + target() : ", connected") + "]";
    }

    /** A lock object of type {@code type} that forwards to {@code resolve}'s lock once connected. */
    private <T> T lock(Class<T> type, String name, Function<PadlockClient, T> resolve) {
        InvocationHandler handler = new InvocationHandler() {
            private volatile @Nullable T target;

            @Override
            public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
                switch (method.getName()) {
                    case "getName":
                        return name;
                    case "newCondition":
                        throw new UnsupportedOperationException("a distributed lock has no conditions");
                    case "toString":
                        return type.getSimpleName() + "[" + name + " of " + DeferredClient.this + "]";
                    case "hashCode":
                        return System.identityHashCode(proxy);
                    case "equals":
                        return proxy == args[0];
                    default:
                        break;
                }
                T lock = target;
                if (lock == null) {
                    PadlockClient client;
                    try {
                        client = require(method.getName() + " on '" + name + "'");
                    } catch (RedisUnavailableException notYet) {
                        if (CompletionStage.class.isAssignableFrom(method.getReturnType())) {
                            return CompletableFuture.failedFuture(notYet);
                        }
                        throw notYet;
                    }
                    lock = resolve.apply(client);
                    target = lock;
                }
                try {
                    return method.invoke(lock, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            }
        };
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler));
    }
}
