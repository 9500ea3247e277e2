package dev.padlock.bench;

import java.util.Locale;

/** What the bench runs on: one Redis server, or a Redis Cluster it starts ({@code --topology}). */
enum Topology {
    /** One server (the default). */
    SINGLE,
    /** A Redis Cluster of {@link #CLUSTER_MASTERS} masters and no replicas. */
    CLUSTER;

    /** How many masters the bench's cluster has. */
    static final int CLUSTER_MASTERS = 3;

    /**
     * The topology named {@code name} ({@code single} or {@code cluster}, case-insensitive).
     *
     * @throws IllegalArgumentException for any other name
     */
    static Topology parse(String name) {
        for (Topology topology : values()) {
            if (topology.name().equalsIgnoreCase(name)) {
                return topology;
            }
        }
        throw new IllegalArgumentException("--topology needs single or cluster, got '" + name + "'");
    }

    /** How the table and {@code bench.md} name it, e.g. {@code Redis Cluster, 3 masters, no replicas}. */
    String description() {
        return this == SINGLE ? "one Redis server" : "Redis Cluster, " + CLUSTER_MASTERS + " masters, no replicas";
    }

    /** The chart's file name: the cluster's does not overwrite the single server's. */
    String chartFileName() {
        return this == SINGLE ? "acquisitions.png" : "acquisitions-" + name().toLowerCase(Locale.ROOT) + ".png";
    }
}
