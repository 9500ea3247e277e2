package dev.padlock.demo;

import dev.padlock.testing.CommandStats;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.RedisProvisioner;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The Redis servers of one run, each with an admin connection: the one given by {@code --redis}
 * or started here, or three independent ones for the red lock. The counter and the demo's other
 * keys live on the first. Used by the parent's main thread only; closing stops what was started.
 */
final class DemoServers implements AutoCloseable {

    private final List<RedisEndpoint> endpoints = new ArrayList<>();
    private final List<RedisAdmin> admins = new ArrayList<>();

    private DemoServers() {
    }

    /**
     * The servers {@code options} asks for: its URIs, or as many servers as the kind needs,
     * started here ({@code redis-server} on the PATH, else the embedded binary).
     *
     * @throws IllegalStateException when a server cannot be started
     */
    static DemoServers provision(DemoOptions options) {
        DemoServers servers = new DemoServers();
        try {
            int count = options.kind().servers();
            for (int i = 0; i < count; i++) {
                RedisEndpoint endpoint = options.redisUris().isEmpty()
                        ? RedisProvisioner.provisionControllable(List.of())
                        : RedisEndpoint.external(options.redisUris().get(i));
                servers.endpoints.add(endpoint);
                servers.admins.add(endpoint.admin());
            }
            return servers;
        } catch (RuntimeException e) {
            try {
                servers.close();
            } catch (RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    List<String> uris() {
        return endpoints.stream().map(RedisEndpoint::uri).collect(Collectors.toList());
    }

    /** The admin connection to the server that holds the counter. */
    RedisAdmin first() {
        return admins.get(0);
    }

    /** {@code Redis 7.0.15 at redis://... (PATH_BINARY)}, one server after the other. */
    String describe() {
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < endpoints.size(); i++) {
            parts.add("Redis " + admins.get(i).infoField("server", "redis_version") + " at " + endpoints.get(i).uri()
                    + " (" + endpoints.get(i).source() + ")");
        }
        return String.join("; ", parts);
    }

    /** Whether every server was started here (no one else's commands in the figures). */
    boolean allControllable() {
        return endpoints.stream().allMatch(RedisEndpoint::isControllable);
    }

    int size() {
        return endpoints.size();
    }

    /** Deletes the counter and the demo's other keys on the first server. */
    void deleteBookkeeping() {
        first().commands().del(DemoKeys.BOOKKEEPING);
    }

    /** {@code INFO commandstats} summed over every server. */
    CommandStats commandStats() {
        Map<String, Long> sum = new TreeMap<>();
        for (RedisAdmin admin : admins) {
            admin.commandStats().asMap().forEach((command, calls) -> sum.merge(command, calls, Long::sum));
        }
        return CommandStats.parse(sum.entrySet().stream()
                .map(entry -> "cmdstat_" + entry.getKey() + ":calls=" + entry.getValue())
                .collect(Collectors.joining("\n")));
    }

    /**
     * The keys of the demo's locks still on any server (the lock names and their extra keys, such
     * as a fair lock's queue), except the fenced lock's token counter, which stays by design;
     * prefixed with the server's number when there are several.
     */
    List<String> lockKeysLeft() {
        List<String> left = new ArrayList<>();
        for (int i = 0; i < admins.size(); i++) {
            for (String key : admins.get(i).commands().keys(DemoKeys.LOCK_KEY_PATTERN)) {
                if (!key.equals(DemoKeys.FENCING_COUNTER)) {
                    left.add(admins.size() > 1 ? "server " + (i + 1) + ": " + key : key);
                }
            }
        }
        return left;
    }

    /** Closes the admin connections and stops the servers started here; the first failure is thrown. */
    @Override
    public void close() {
        RuntimeException failure = null;
        List<AutoCloseable> all = new ArrayList<>(admins);
        all.addAll(endpoints);
        for (AutoCloseable closeable : all) {
            try {
                closeable.close();
            } catch (Exception e) {
                RuntimeException wrapped = e instanceof RuntimeException runtime
                        ? runtime : new IllegalStateException("Cannot close " + closeable, e);
                if (failure == null) {
                    failure = wrapped;
                } else {
                    failure.addSuppressed(wrapped);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
