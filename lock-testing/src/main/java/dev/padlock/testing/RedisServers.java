package dev.padlock.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Several independent Redis servers started together (e.g. for red locks), each a controllable
 * {@link RedisServerProcess}; closing this closes them all.
 */
public final class RedisServers implements AutoCloseable {

    private final List<RedisEndpoint> endpoints;

    private RedisServers(List<RedisEndpoint> endpoints) {
        this.endpoints = List.copyOf(endpoints);
    }

    /**
     * Starts {@code count} servers from {@link RedisProvisioner#provisionControllable}; when one
     * fails, those already started are stopped.
     */
    public static RedisServers start(int count, String... serverArgs) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1, got " + count);
        }
        List<RedisEndpoint> started = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                started.add(RedisProvisioner.provisionControllable(List.of(serverArgs)));
            }
            return new RedisServers(started);
        } catch (RuntimeException e) {
            for (RedisEndpoint endpoint : started) {
                try {
                    endpoint.close();
                } catch (RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        }
    }

    /** How many servers. */
    public int size() {
        return endpoints.size();
    }

    /** The server at {@code index}. */
    public RedisServerProcess get(int index) {
        return endpoints.get(index).requireProcess();
    }

    /** The endpoints, in order. */
    public List<RedisEndpoint> endpoints() {
        return endpoints;
    }

    /** The URIs, in order. */
    public List<String> uris() {
        return endpoints.stream().map(RedisEndpoint::uri).collect(Collectors.toList());
    }

    @Override
    public void close() {
        RuntimeException failure = null;
        for (RedisEndpoint endpoint : endpoints) {
            failure = Cleanup.close(endpoint, failure);
        }
        Cleanup.rethrow(failure);
    }
}
