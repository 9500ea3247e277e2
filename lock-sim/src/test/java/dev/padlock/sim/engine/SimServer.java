package dev.padlock.sim.engine;

import dev.padlock.sim.redis.ModelRedis;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The one Redis server of a simulation: the {@link ModelRedis} on the world's clock, an actor
 * whose stall holds every command back, and the routing of published messages to the clients'
 * pub/sub connections.
 */
public final class SimServer {
    private final World world;
    private final ModelRedis model;
    private final World.Actor actor = new World.Actor("redis");
    private final Map<String, ModelBackend> clients = new HashMap<>();
    private final Network network;
    private java.util.function.Consumer<List<String>> onRun = command -> {
    };
    private java.util.function.Consumer<String> onUndeclaredKey = what -> {
    };

    public SimServer(World world, Network network) {
        this.world = world;
        this.network = network;
        // -Dpadlock.sim.redis=6 runs the scripts as on Redis 6.2 (no PEXPIRE GT), as CI's second run does
        this.model = new ModelRedis(world::currentTimeMillis, Integer.getInteger("padlock.sim.redis", 7));
        // a strict server's rule (Dragonfly's): every run checks that scripts touch only their KEYS
        model.refuseUndeclaredKeys(what -> onUndeclaredKey.accept(what));
        model.onPublish((subscriber, channel, message) -> {
            ModelBackend client = clients.get(subscriber);
            if (client != null) {
                client.push(channel, message, world.nanoTime());
            }
        });
    }

    public ModelRedis model() {
        return model;
    }

    /** Told of every command just before the server runs it, scripts by their lock-lua name. */
    public void onRun(java.util.function.Consumer<List<String>> listener) {
        this.onRun = listener;
    }

    /**
     * Told when the server refused a script's call for a key not among its KEYS (and not one of
     * the exceptions the model knows): a script, or the engine's KEYS, broke the strict keys rule.
     */
    public void onUndeclaredKey(java.util.function.Consumer<String> listener) {
        this.onUndeclaredKey = listener;
    }

    void running(List<String> command) {
        onRun.accept(command);
    }

    World.Actor actor() {
        return actor;
    }

    Network network() {
        return network;
    }

    World world() {
        return world;
    }

    void attach(String clientId, ModelBackend backend) {
        clients.put(clientId, backend);
    }

    /**
     * The virtual time at which {@code key}'s expiry falls (its last instant or, by chance, the first
     * after it), for a command aimed at that boundary; 0 when the key has no expiry.
     */
    long expiryOf(String key) {
        ModelRedis.Entry entry = model.snapshot().get(key);
        if (entry == null || entry.pttl() < 0) {
            return 0;
        }
        long nowMillis = world.currentTimeMillis();
        long expiresAtMillis = nowMillis + entry.pttl();
        return TimeUnit.MILLISECONDS.toNanos(expiresAtMillis - World.EPOCH_MILLIS) + network.expiryOffsetNanos();
    }

    /** Holds every command back for {@code millis}: a server busy with something else. */
    public void stall(long millis) {
        actor.pauseUntil(world.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis));
    }

    /** Whether the server is stalled now. */
    public boolean stalled() {
        return actor.pausedAt(world.nanoTime());
    }

    /**
     * A restart that lost the data: every key and script is gone, and every client's connections
     * drop (their calls in flight may or may not have run) and come back.
     */
    public void restartEmpty() {
        model.restartEmpty();
        for (ModelBackend client : clients.values()) {
            model.unsubscribeAll(client.clientId());
            client.dropConnections();
        }
    }
}
