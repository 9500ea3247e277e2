package dev.padlock.bench;

import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisBinary;
import dev.padlock.testing.RedisCluster;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.RedisProvisioner;
import dev.padlock.testing.RedisServerProcess;
import dev.padlock.testing.RedisSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.ToIntFunction;
import java.util.stream.Collectors;

/**
 * The Redis the bench runs on and an admin connection to each of its masters: one server (started
 * here, or given with {@code --redis}), or a Redis Cluster of {@value Topology#CLUSTER_MASTERS}
 * masters without replicas that it starts ({@link RedisCluster}). Server-wide figures
 * ({@code INFO}, {@code MONITOR}, {@code KEYS}) are taken on every master and summed.
 *
 * <p>Closing it closes the admin connections and stops what it started. Thread-safe: the fields
 * are final and the admin connections are.
 */
final class BenchServers implements AutoCloseable {

    private final RedisTarget target;
    private final List<RedisAdmin> admins;
    private final ToIntFunction<String> masterOfKey;
    private final String description;
    private final boolean controllable;
    private final AutoCloseable owned;

    private BenchServers(RedisTarget target, List<RedisAdmin> admins, ToIntFunction<String> masterOfKey,
            String description, boolean controllable, AutoCloseable owned) {
        this.target = target;
        this.admins = List.copyOf(admins);
        this.masterOfKey = masterOfKey;
        this.description = description;
        this.controllable = controllable;
        this.owned = owned;
    }

    /**
     * Starts what {@code topology} needs: one server ({@code redisUri} instead when given) or a
     * cluster (which {@code redisUri} cannot be).
     *
     * @throws IllegalArgumentException for a cluster with {@code redisUri}
     */
    static BenchServers start(Topology topology, Optional<String> redisUri) {
        if (topology == Topology.CLUSTER) {
            if (redisUri.isPresent()) {
                throw new IllegalArgumentException(
                        "--redis names one server; --topology cluster starts its own cluster");
            }
            return startCluster();
        }
        return single(redisUri.map(RedisEndpoint::external)
                .orElseGet(() -> RedisProvisioner.provisionControllable(List.of())));
    }

    private static BenchServers single(RedisEndpoint endpoint) {
        RedisAdmin admin;
        try {
            admin = endpoint.admin();
        } catch (RuntimeException e) {
            throw closeAll(List.of(endpoint), e);
        }
        String version = admin.infoField("server", "redis_version");
        return new BenchServers(RedisTarget.single(endpoint.uri()), List.of(admin), key -> 0,
                String.format(Locale.ROOT, "Redis %s at %s (%s)", version, endpoint.uri(), endpoint.source()),
                endpoint.isControllable(), endpoint);
    }

    private static BenchServers startCluster() {
        RedisBinary binary = RedisBinary.locate();
        RedisCluster cluster = RedisCluster.start(binary.path(), Topology.CLUSTER_MASTERS, 0,
                RedisCluster.DEFAULT_NODE_TIMEOUT);
        List<RedisAdmin> admins = new ArrayList<>();
        try {
            List<RedisServerProcess> masters = cluster.masters();
            for (RedisServerProcess master : masters) {
                admins.add(cluster.admin(master));
            }
            RedisSource source = binary.origin() == RedisBinary.Origin.PATH
                    ? RedisSource.PATH_BINARY : RedisSource.EMBEDDED_BINARY;
            String description = String.format(Locale.ROOT,
                    "Redis %s, a Cluster of %d masters without replicas at %s (%s)",
                    admins.get(0).infoField("server", "redis_version"), masters.size(),
                    String.join(", ", cluster.seedUris()), source);
            return new BenchServers(RedisTarget.cluster(cluster.seedUris()), admins,
                    key -> masters.indexOf(cluster.masterForKey(key)), description, true, cluster);
        } catch (RuntimeException e) {
            List<AutoCloseable> started = new ArrayList<>(admins);
            started.add(cluster);
            throw closeAll(started, e);
        }
    }

    /** What clients connect to. */
    RedisTarget target() {
        return target;
    }

    /** One admin connection per master, in slot order; one for a single server. */
    List<RedisAdmin> admins() {
        return admins;
    }

    /** The server or servers, for the header: version, addresses and where the binary came from. */
    String description() {
        return description;
    }

    /** Whether the bench started the servers itself (else others' commands count too). */
    boolean isControllable() {
        return controllable;
    }

    /**
     * {@code count} lock names of the run tagged {@code tag}: {@link BenchContext#lockName} on a
     * single server; on a cluster names of that form, some with a suffix, chosen so that name
     * {@code i} lives on master {@code i % masters}, which spreads them evenly.
     */
    List<String> lockNames(String tag, int count) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String name = BenchContext.lockName(tag, i);
            int wanted = i % admins.size();
            for (int suffix = 1; masterOfKey.applyAsInt(name) != wanted; suffix++) {
                name = BenchContext.lockName(tag, i) + "-" + suffix;
            }
            names.add(name);
        }
        return List.copyOf(names);
    }

    /**
     * {@code count} lock names of the run tagged {@code tag} that share one hash tag per master:
     * name {@code i} is {@code bench:{<tag>-m<m>}:i} (the hash tag with a suffix where needed, as
     * {@link #lockNames} has) for master {@code m = i % masters}, the hash tag chosen so that its
     * slot ({@code SlotHash.getSlot}) is one that master serves. The names of one master are thus
     * in one slot, and one script may take them all; on a single server every name has the one
     * hash tag {@code {<tag>-m0}}.
     */
    List<String> hashTaggedLockNames(String tag, int count) {
        List<String> hashTags = new ArrayList<>();
        for (int master = 0; master < admins.size(); master++) {
            String hashTag = tag + "-m" + master;
            for (int suffix = 1; masterOfKey.applyAsInt("{" + hashTag + "}") != master; suffix++) {
                hashTag = tag + "-m" + master + "-" + suffix;
            }
            hashTags.add(hashTag);
        }
        List<String> names = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            names.add("bench:{" + hashTags.get(i % hashTags.size()) + "}:" + i);
        }
        return List.copyOf(names);
    }

    /** The index in {@link #admins()} of the master that holds {@code key}. */
    int masterOf(String key) {
        return masterOfKey.applyAsInt(key);
    }

    /** The keys matching {@code pattern} on every master ({@code KEYS}: a bench server only). */
    List<String> keys(String pattern) {
        return admins.stream().flatMap(admin -> admin.commands().keys(pattern).stream()).collect(Collectors.toList());
    }

    @Override
    public void close() {
        List<AutoCloseable> resources = new ArrayList<>(admins);
        resources.add(owned);
        RuntimeException failure = closeAll(resources, null);
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Closes every resource in order and returns {@code failure} with theirs added: the first
     * failure thrown, the others suppressed; null when there was none at all.
     */
    private static RuntimeException closeAll(List<AutoCloseable> resources, RuntimeException failure) {
        RuntimeException first = failure;
        for (AutoCloseable resource : resources) {
            try {
                resource.close();
            } catch (Exception e) {
                RuntimeException thrown = e instanceof RuntimeException
                        ? (RuntimeException) e : new IllegalStateException("Cannot close " + resource, e);
                if (first == null) {
                    first = thrown;
                } else {
                    first.addSuppressed(thrown);
                }
            }
        }
        return first;
    }
}
