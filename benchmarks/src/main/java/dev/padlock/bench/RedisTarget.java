package dev.padlock.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * What a client connects to: one server's URI, or a Cluster's seed URIs. It travels to worker
 * JVMs and to the JMH fork as one string, {@link #argument()}: the URI itself for a server (as
 * before there were clusters), {@code cluster:<uri>,<uri>,...} for a Cluster. Immutable.
 *
 * @param topology a single server or a Cluster
 * @param uris the server's URI, or the Cluster's seeds; at least one
 */
record RedisTarget(Topology topology, List<String> uris) {

    private static final String CLUSTER_PREFIX = "cluster:";

    RedisTarget {
        Objects.requireNonNull(topology, "topology");
        uris = List.copyOf(uris);
        if (uris.isEmpty() || topology == Topology.SINGLE && uris.size() != 1) {
            throw new IllegalArgumentException(topology + " needs "
                    + (topology == Topology.SINGLE ? "one URI" : "seed URIs") + ", got " + uris);
        }
    }

    /** One server at {@code uri}. */
    static RedisTarget single(String uri) {
        return new RedisTarget(Topology.SINGLE, List.of(uri));
    }

    /** A Cluster reached through {@code seeds}. */
    static RedisTarget cluster(List<String> seeds) {
        return new RedisTarget(Topology.CLUSTER, seeds);
    }

    /** Reads what {@link #argument()} wrote. */
    static RedisTarget parse(String argument) {
        if (argument.startsWith(CLUSTER_PREFIX)) {
            return cluster(Arrays.asList(argument.substring(CLUSTER_PREFIX.length()).split(",")));
        }
        return single(argument);
    }

    /** The one server's URI. */
    String uri() {
        if (topology != Topology.SINGLE) {
            throw new IllegalStateException("A Cluster has seeds, not one URI: " + uris);
        }
        return uris.get(0);
    }

    /** This target as one command-line argument. */
    String argument() {
        return topology == Topology.SINGLE ? uri() : CLUSTER_PREFIX + String.join(",", uris);
    }
}
