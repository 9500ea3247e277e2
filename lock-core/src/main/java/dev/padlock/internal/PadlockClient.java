package dev.padlock.internal;

import static dev.padlock.internal.base.Nulls.castToNonNull;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RFencedLock;
import dev.padlock.RLock;
import dev.padlock.RReadWriteLock;
import dev.padlock.RPermitExpirableSemaphore;
import dev.padlock.RSemaphore;
import dev.padlock.RedisCommandException;
import dev.padlock.RedisUnavailableException;
import dev.padlock.internal.acquire.Abandonments;
import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.base.Require;
import dev.padlock.internal.composite.CompositeServices;
import dev.padlock.internal.composite.MultiLock;
import dev.padlock.internal.composite.RedLock;
import dev.padlock.internal.grant.GrantRouter;
import dev.padlock.internal.grant.GrantWaits;
import dev.padlock.internal.lock.LockServices;
import dev.padlock.internal.lock.RedisFencedLock;
import dev.padlock.internal.lock.RedisLock;
import dev.padlock.internal.lock.RedisReadWriteLock;
import dev.padlock.internal.observe.Observing;
import dev.padlock.internal.protocol.ExclusiveLockProtocol;
import dev.padlock.internal.protocol.FairLockProtocol;
import dev.padlock.internal.protocol.OwnerFields;
import dev.padlock.internal.queue.LocalQueues;
import dev.padlock.internal.queue.SinceNotes;
import dev.padlock.internal.redis.RedisBackend;
import dev.padlock.internal.redis.RedisErrors;
import dev.padlock.internal.renewal.Watchdog;
import dev.padlock.internal.script.ScriptRunner;
import dev.padlock.internal.semaphore.PermitHandOffs;
import dev.padlock.internal.semaphore.RedisPermitExpirableSemaphore;
import dev.padlock.internal.semaphore.RedisSemaphore;
import dev.padlock.internal.wakeup.WakeUpRegistry;
import io.lettuce.core.ScriptOutputType;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timer;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The {@link LockClient}: wires the connections, the wake-up registry and the watchdog. */
public final class PadlockClient implements LockClient {
    private static final Logger log = LoggerFactory.getLogger(PadlockClient.class);

    /** How long an unused unlock-channel subscription is kept for the next waiter. */
    static final Duration SUBSCRIPTION_IDLE_TIMEOUT = Duration.ofSeconds(5);
    /** How many unused subscriptions are kept at most. */
    static final int MAX_IDLE_SUBSCRIPTIONS = 1024;
    /** The resolution of the client's timer: local waits end at most this late. */
    static final long TIMER_TICK_MILLIS = 5;

    private final LockServices services;
    /** What this client's composite locks share: its observer, clock and timer, and its owners' turns. */
    private final CompositeServices composites;
    private final ExecutorService listenerExecutor;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** This client's entry in the client registry; null when the registry is off. */
    private volatile @Nullable ClientRegistration registration;
    private volatile @Nullable SinceNotes sinceNotes;
    /** Hand-offs of counted permits between this client's threads, shared by its semaphores. */
    private final PermitHandOffs permitHandOffs;

    private PadlockClient(LockServices services, ExecutorService listenerExecutor) {
        this.services = services;
        this.composites = CompositeServices.of(services.observing(), services.clock(), services.timer());
        this.listenerExecutor = listenerExecutor;
        this.permitHandOffs = new PermitHandOffs(services.clock());
    }

    /**
     * Connects as {@code config} says.
     *
     * @throws dev.padlock.RedisUnavailableException when Redis cannot be reached
     */
    public static PadlockClient open(LockConfig config) {
        return open(config, UUID.randomUUID().toString(), EngineClock.SYSTEM); // the system's clock: read here only
    }

    /**
     * Connects as {@code config} says, as the client {@code clientId}, on {@code clock}; see
     * {@link #open(LockConfig)}.
     */
    static PadlockClient open(LockConfig config, String clientId, EngineClock clock) {
        RedisBackend backend = RedisBackend.open(config);
        try {
            prepareScripts(backend, config);
            checkWait(backend, config);
        } catch (RuntimeException failure) {
            backend.close();
            throw failure;
        }
        // the client's one timer and clock: every wait, renewal round and retry of the engine
        HashedWheelTimer timer = new HashedWheelTimer(new DefaultThreadFactory("padlock-timer", true),
                TIMER_TICK_MILLIS, TimeUnit.MILLISECONDS, 512);
        // the listener's own thread, started at the first loss: not the common pool, which an
        // application may saturate, and not an I/O or timer thread, which the listener could block
        ExecutorService listenerExecutor = Executors.newSingleThreadExecutor(
                new DefaultThreadFactory("padlock-lease-lost", true));
        return assemble(config, clientId, backend, timer, clock, ForkJoinPool.commonPool(),
                listenerExecutor);
    }

    /**
     * Readies the server(s) for the client's scripts ({@link ScriptRunner#prepare}): with functions,
     * Padlock's library on every master. Bounded by a few command timeouts: a probe, a load, and
     * on a Cluster the connections to its masters.
     */
    private static void prepareScripts(RedisBackend backend, LockConfig config) {
        long boundMillis = 3 * config.commandTimeout().toMillis();
        try {
            ScriptRunner.prepare(backend, config.scripting()).get(boundMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RedisUnavailableException("readying " + backend.address() + " for Padlock's scripts was interrupted", e);
        } catch (ExecutionException e) {
            throw backend.translate(RedisErrors.causeOf(e), "readying the server for Padlock's scripts");
        } catch (TimeoutException e) {
            throw new RedisUnavailableException("readying " + backend.address() + " for Padlock's scripts ("
                    + config.scripting() + ") got no answer within " + boundMillis + " ms", e);
        }
    }

    /**
     * With {@code replicaAcknowledgement}, asks the server for {@code WAIT 0 0} once, so that a
     * server or proxy without {@code WAIT} (ElastiCache Serverless, some cluster proxies) or an ACL
     * user without it fails here, naming the setting, rather than at every acquisition.
     */
    private static void checkWait(RedisBackend backend, LockConfig config) {
        if (config.acknowledgingReplicas() == 0) {
            return;
        }
        long boundMillis = config.commandTimeout().toMillis();
        try {
            backend.commands().waitForReplication(0, 0).toCompletableFuture().get(boundMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RedisUnavailableException("asking " + backend.address() + " for WAIT was interrupted", e);
        } catch (ExecutionException e) {
            RuntimeException translated = backend.translate(RedisErrors.causeOf(e), "WAIT 0 0");
            if (translated instanceof RedisUnavailableException) {
                throw translated;
            }
            throw new RedisCommandException("replicaAcknowledgement(" + config.acknowledgingReplicas() + ", "
                    + config.acknowledgementTimeout() + ") sends WAIT after every acquisition, but Redis at "
                    + backend.address() + " refused it (" + RedisErrors.unwrap(RedisErrors.causeOf(e)).getMessage()
                    + "): allow +wait to the ACL user, or leave replicaAcknowledgement off on a server without WAIT,"
                    + " such as ElastiCache Serverless (docs/operating/where-it-runs.md)", translated);
        } catch (TimeoutException e) {
            throw new RedisUnavailableException("WAIT 0 0 at " + backend.address() + " got no answer within "
                    + boundMillis + " ms", e);
        }
    }

    /**
     * A client on the given Redis, timer and clock, as {@code config} says otherwise (its Redis
     * addresses aside): how a simulation runs the real engine on a model of Redis in virtual time,
     * on one thread. The client owns what it is given: {@link #close()} stops the timer, closes the
     * backend and shuts the listener executor down.
     *
     * @param maintenance where the engine's caches do their upkeep
     * @param listenerExecutor where lease-lost listeners are called
     */
    public static PadlockClient assemble(LockConfig config, String clientId, RedisBackend backend, Timer timer,
            EngineClock clock, Executor maintenance, ExecutorService listenerExecutor) {
        int replicas = config.acknowledgingReplicas();
        ScriptRunner all = new ScriptRunner(backend, config.scripting(), timer, clock, config.commandTimeout().toMillis());
        ScriptRunner scripts = replicas > 0 ? all.pinned() : all;
        WakeUpRegistry wakeUps = new WakeUpRegistry(backend, timer, clock, maintenance, SUBSCRIPTION_IDLE_TIMEOUT,
                MAX_IDLE_SUBSCRIPTIONS);
        LocalQueues queues = new LocalQueues();
        // in order: a renewal must land before a release sent after it (see Watchdog)
        Watchdog.Sender renewals = (script, keys, args) -> scripts.runInOrder(script, ScriptOutputType.MULTI, keys, args);
        Watchdog.HoldCounter holds = (name, field) -> backend.commands().hget(name, field).toCompletableFuture()
                .thenApply(count -> count == null ? 0L : Long.parseLong(count));
        Observing observing = config.observer().map(observer -> new Observing(observer, clock)).orElse(null);
        GrantWaits grantWaits = new GrantWaits();
        BiConsumer<String, Long> lossHook = (localKey, owner) -> {
            queues.onLeaseLost(localKey, owner);
            grantWaits.leaseLost(localKey, owner);
            if (observing != null) {
                observing.leaseLost(localKey, owner);
            }
        };
        Watchdog watchdog = new Watchdog(renewals, holds, backend.isCluster(), config.watchdogTimeout().toMillis(),
                config.leaseLostListener().orElse(null), listenerExecutor, lossHook, timer, clock, observing);
        log.debug("Padlock client {} connected to {}", clientId, backend.address());
        LockServices services = new LockServices(clientId, new OwnerFields(clientId), backend, scripts, wakeUps, watchdog, queues,
                new Abandonments(timer, clock, config.commandTimeout().toMillis()), timer, clock,
                config.commandTimeout().toMillis(), replicas, config.acknowledgementTimeout().toMillis(), observing, grantWaits);
        wakeUps.onGrant(new GrantRouter(grantWaits, queues.plainGrants(services)));
        PadlockClient client = new PadlockClient(services, listenerExecutor);
        client.sinceNotes = new SinceNotes(timer, queues);
        if (config.clientRegistry()) {
            client.registration = ClientRegistration.of(backend, scripts, timer, clock, clientId,
                    config.applicationName().orElseGet(ClientRegistration::defaultApplicationName),
                    config.watchdogTimeout().toMillis(), config.commandTimeout().toMillis());
            client.registration.start();
        }
        return client;
    }

    @Override
    public String getId() {
        return services.clientId();
    }

    @Override
    public RLock getLock(String name) {
        return exclusive(name, false);
    }

    @Override
    public RLock getSpinLock(String name) {
        return exclusive(name, true);
    }

    @Override
    public RLock getFairLock(String name) {
        checkName(name);
        return new RedisLock(new FairLockProtocol(name, services), services, false, "fair");
    }

    @Override
    public RReadWriteLock getReadWriteLock(String name) {
        checkName(name);
        return new RedisReadWriteLock(name, services);
    }

    @Override
    public RFencedLock getFencedLock(String name) {
        checkName(name);
        return new RedisFencedLock(name, services);
    }

    @Override
    public RSemaphore getSemaphore(String name) {
        checkName(name);
        return new RedisSemaphore(name, services, permitHandOffs);
    }

    @Override
    public RPermitExpirableSemaphore getPermitExpirableSemaphore(String name) {
        checkName(name);
        return new RedisPermitExpirableSemaphore(name, services);
    }

    @Override
    public RLock getMultiLock(RLock... locks) {
        return MultiLock.of(composites, locks);
    }

    @Override
    public RLock getRedLock(RLock... locks) {
        return RedLock.of(composites, locks);
    }

    private RLock exclusive(String name, boolean spin) {
        checkName(name);
        return new RedisLock(new ExclusiveLockProtocol(name, services), services, spin, spin ? "spin" : "lock");
    }

    /**
     * Extends owner {@code threadId}'s lease of the plain lock {@code name} to {@code leaseMillis}
     * (0 or less: the watchdog's) when it holds; see {@link SpiAccess#extendLease}.
     */
    CompletableFuture<Boolean> extendLease(String name, long threadId, long leaseMillis) {
        checkName(name);
        long lease = leaseMillis > 0 ? leaseMillis : services.watchdog().leaseMillis();
        return new RedisLock(new ExclusiveLockProtocol(name, services), services, false, "lock")
                .extendLeaseAsync(lease, threadId);
    }

    private void checkName(String name) {
        Require.lockName(name);
        Require.state(!closed.get(), "the LockClient is closed");
    }

    /** The client's script runner; for {@link SpiAccess}. */
    ScriptRunner scripts() {
        return services.scripts();
    }

    /** The client's connections; for {@link SpiAccess}. */
    RedisBackend backend() {
        return services.backend();
    }

    /** The client's clock: the engine's one source of time; for {@link SpiAccess}. */
    EngineClock clock() {
        return services.clock();
    }

    /** The bound on one Redis round trip, in milliseconds. */
    public long commandTimeoutMillis() {
        return services.commandTimeoutMillis();
    }

    /** Unlock channels subscribed now (in use or idle); for tests and metrics. */
    public int subscribedChannels() {
        return services.wakeUps().subscribedChannels();
    }

    /** Unlock channels with a waiter of this client now; for tests and metrics. */
    public int channelsInUse() {
        return services.wakeUps().channelsInUse();
    }

    /** Locks this client holds or waits for now, each with its local queue; for tests and metrics. */
    public int localQueues() {
        return services.queues().size();
    }

    /** The local queues' states (holder, head, calls in flight, queued owners); for diagnostics in tests. */
    public String describeLocalQueues() {
        return services.queues().describe();
    }

    /** Owners whose watchdog leases are renewed now (one per owner and lock); for tests and metrics. */
    public int renewedLocks() {
        return services.watchdog().activeRenewals();
    }

    /**
     * Completes (never exceptionally) once the client registry's first write has been answered,
     * or at once when the registry is off: tests that count a server's commands wait for it so
     * that the registration is not counted as a lock operation's.
     */
    public CompletableFuture<Void> registered() {
        ClientRegistration entry = registration;
        return entry == null ? CompletableFuture.completedFuture(null) : entry.firstWrite();
    }

    /**
     * Timeouts scheduled on the client's timer now: the watchdog's next round, plus one per queued
     * timed wait, watched fixed lease and pending yield; for tests and metrics. The client
     * registry's one refresh is not counted.
     */
    public int scheduledTasks() {
        ClientRegistration entry = registration;
        int refreshes = entry == null ? 0 : entry.scheduledRefreshes();
        long pending = services.timer() instanceof HashedWheelTimer wheel ? wheel.pendingTimeouts() : 0;
        return (int) pending - refreshes;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            services.watchdog().close();
            castToNonNull(sinceNotes).close(); // set by assemble() before the client is shared
            services.queues().close();
            services.abandonments().close();
            services.wakeUps().close(); // new acquisitions now fail as closed, before the timer stops
            if (registration != null) {
                registration.close(); // before the connection goes: deletes the entry
            }
            services.timer().stop();
            services.backend().close();
            listenerExecutor.shutdown(); // lets a listener call already queued finish
        }
    }

    @Override
    public String toString() {
        return "LockClient[" + services.clientId() + " @ " + services.address() + "]";
    }
}
