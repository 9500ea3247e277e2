package dev.padlock.testing;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The checks {@link RedisCluster} waits on, each returning the first problem found, or null.
 * "Healthy" means: every running node says {@code cluster_state:ok}; in its view every running
 * node is known, connected and unflagged, each shard's master owns exactly the shard's range and
 * each running replica follows its master; and each running replica's link to its master is up.
 * Nodes that are not running (killed by a test) are left out, except as the old masters whose
 * slots must have moved. Called with the cluster's lock held.
 */
final class ClusterHealth {

    private final List<RedisServerProcess> nodes;
    private final Map<RedisServerProcess, String> ids;
    private final NodeConnections connections;

    ClusterHealth(List<RedisServerProcess> nodes, Map<RedisServerProcess, String> ids, NodeConnections connections) {
        this.nodes = nodes;
        this.ids = ids;
        this.connections = connections;
    }

    /** While forming: whether every node knows every other one, connected and unflagged. */
    String meetProblem() {
        for (RedisServerProcess node : nodes) {
            ClusterView view = view(node);
            if (view.nodes().size() != nodes.size()) {
                return node.port() + " knows " + view.nodes().size() + " of " + nodes.size() + " nodes";
            }
            for (ClusterView.Node entry : view.nodes()) {
                String problem = entry.problem();
                if (problem != null) {
                    return "on " + node.port() + ": " + problem;
                }
            }
        }
        return null;
    }

    /** Whether the running nodes are healthy and agree with {@code shards}. */
    String problem(List<ClusterShard> shards) {
        Map<String, RedisServerProcess> running = new LinkedHashMap<>();
        for (RedisServerProcess node : nodes) {
            if (node.isRunning()) {
                running.put(ids.get(node), node);
            }
        }
        for (RedisServerProcess node : running.values()) {
            String state = InfoFields.parse(connections.commands(node).clusterInfo()).get("cluster_state");
            if (!"ok".equals(state)) {
                return node.port() + " has cluster_state " + state;
            }
            String problem = viewProblem(node.port(), view(node), running, shards);
            if (problem != null) {
                return problem;
            }
        }
        for (ClusterShard shard : shards) {
            for (RedisServerProcess replica : shard.replicas) {
                if (replica.isRunning()) {
                    Map<String, String> replication = replication(replica);
                    if (!"up".equals(replication.get("master_link_status"))
                            || !String.valueOf(shard.master.port()).equals(replication.get("master_port"))) {
                        return "replica " + replica.port() + " of " + shard.master.port() + " has master_port "
                                + replication.get("master_port") + ", link " + replication.get("master_link_status");
                    }
                }
            }
        }
        return null;
    }

    /** The {@code role} in {@code INFO replication}: {@code master} or {@code slave}. */
    String role(RedisServerProcess node) {
        return replication(node).get("role");
    }

    private String viewProblem(int port, ClusterView view, Map<String, RedisServerProcess> running,
            List<ClusterShard> shards) {
        for (String id : running.keySet()) {
            ClusterView.Node entry = view.node(id).orElse(null);
            String problem = entry == null ? "node " + id + " is unknown" : entry.problem();
            if (problem != null) {
                return "on " + port + ": " + problem;
            }
        }
        for (ClusterShard shard : shards) {
            String masterId = ids.get(shard.master);
            ClusterView.Node master = view.node(masterId).orElse(null);
            if (master == null || !master.isMaster() || !master.slots().equals(List.of(shard.range()))) {
                return "on " + port + ": master " + shard.master.port() + " should own " + shard.range()
                        + ", view is " + view;
            }
            for (RedisServerProcess replica : shard.replicas) {
                ClusterView.Node entry = view.node(ids.get(replica)).orElse(null);
                boolean follows = entry != null && entry.isReplica() && masterId.equals(entry.masterId());
                if (replica.isRunning() && !follows) {
                    return "on " + port + ": " + replica.port() + " should replicate " + shard.master.port()
                            + ", view is " + view;
                }
            }
        }
        return null;
    }

    private ClusterView view(RedisServerProcess node) {
        return ClusterView.parse(connections.commands(node).clusterNodes());
    }

    private Map<String, String> replication(RedisServerProcess node) {
        return InfoFields.parse(connections.commands(node).info("replication"));
    }
}
