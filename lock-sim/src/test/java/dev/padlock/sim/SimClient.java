package dev.padlock.sim;

import dev.padlock.LockConfig;
import dev.padlock.RLock;
import dev.padlock.RPermitExpirableSemaphore;
import dev.padlock.RSemaphore;
import dev.padlock.internal.PadlockClient;
import dev.padlock.sim.engine.ClientTimer;
import dev.padlock.sim.engine.ModelBackend;
import dev.padlock.sim.engine.SimServer;
import dev.padlock.sim.engine.World;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * One Padlock client of a simulation: the real engine ({@link PadlockClient}) on the model Redis,
 * with its own timer and actor (so a pause holds back its timers and its input) and a lease-lost
 * listener that reports to the simulation.
 */
final class SimClient {
    final String id;
    final World.Actor actor;
    final ModelBackend backend;
    final PadlockClient client;
    final RLock plain;
    final RLock spin;
    final RLock fenced;
    final RLock fair;
    final RLock read;
    final RLock write;
    final RLock multi;
    final RLock red;
    final RLock batch;
    final RSemaphore semaphore;
    final RPermitExpirableSemaphore permits;
    /** When the client's last pause ended (virtual nanos); -1: never paused. */
    long pausedUntil = -1;
    /** The end of the latest fault of this client alone (a pause, a dropped connection). */
    long lastDisturbance;

    void disturbed(long until) {
        lastDisturbance = Math.max(lastDisturbance, until);
    }

    SimClient(World world, SimServer server, String id, SimConfig config, BiConsumer<String, Long> leaseLost) {
        this.id = id;
        this.actor = new World.Actor(id);
        this.backend = new ModelBackend(server, actor, id, config.commandTimeoutMillis());
        LockConfig lockConfig = LockConfig.builder()
                .redisUri("redis://model:6380") // not connected to: the backend is the model's
                .commandTimeout(Duration.ofMillis(config.commandTimeoutMillis()))
                .watchdogTimeout(Duration.ofMillis(config.watchdogMillis()))
                .fairWaiterTimeout(Duration.ofMillis(config.fairWaiterMillis()))
                .clientRegistry(config.clientRegistry())
                .leaseLostListener(leaseLost::accept)
                .build();
        this.client = PadlockClient.assemble(lockConfig, id, backend, new ClientTimer(world, actor), world, Runnable::run,
                new ActorExecutor(world, actor));
        this.plain = client.getLock(SimConfig.PLAIN);
        this.spin = client.getSpinLock(SimConfig.SPIN);
        this.fenced = client.getFencedLock(SimConfig.FENCED);
        this.fair = client.getFairLock(SimConfig.FAIR);
        this.read = client.getReadWriteLock(SimConfig.READ_WRITE).readLock();
        this.write = client.getReadWriteLock(SimConfig.READ_WRITE).writeLock();
        this.multi = client.getMultiLock(plain, fair);
        this.batch = client.getMultiLock(plain, client.getLock(SimConfig.BATCH_COMPONENTS.get(0)));
        this.red = client.getRedLock(SimConfig.RED_COMPONENTS.stream().map(client::getLock).toArray(RLock[]::new));
        this.semaphore = client.getSemaphore(SimConfig.SEMAPHORE);
        this.permits = client.getPermitExpirableSemaphore(SimConfig.PERMITS);
    }

    RLock lock(Kind kind) {
        return switch (kind) {
            case PLAIN -> plain;
            case SPIN -> spin;
            case FENCED -> fenced;
            case FAIR -> fair;
            case READ -> read;
            case WRITE -> write;
            case MULTI -> multi;
            case RED -> red;
            case BATCH -> batch;
        };
    }

    /** Runs the engine's lease-lost listener calls as events of the client: in order, and held back by a pause. */
    private static final class ActorExecutor extends AbstractExecutorService {
        private final World world;
        private final World.Actor actor;
        private boolean shutdown;

        ActorExecutor(World world, World.Actor actor) {
            this.world = world;
            this.actor = actor;
        }

        @Override
        public void execute(Runnable command) {
            world.at(world.nanoTime(), actor, "lease-lost listener", command);
        }

        @Override
        public void shutdown() {
            shutdown = true;
        }

        @Override
        public List<Runnable> shutdownNow() {
            shutdown = true;
            return new ArrayList<>();
        }

        @Override
        public boolean isShutdown() {
            return shutdown;
        }

        @Override
        public boolean isTerminated() {
            return shutdown;
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
            return shutdown;
        }
    }
}
