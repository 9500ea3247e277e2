package dev.padlock.testing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * One node's view of a Redis Cluster, parsed from {@code CLUSTER NODES} (the same format on
 * Redis 6.2 and 7.x). Immutable.
 *
 * <p>A line reads {@code <id> <ip:port@cport[,hostname]> <flags> <master> <ping-sent>
 * <pong-recv> <config-epoch> <link-state> <slot>...}; slots are numbers or {@code from-to}
 * ranges, and entries in brackets (slots being migrated) are left out here.
 */
final class ClusterView {

    /** One line of the view. */
    record Node(String id, int port, Set<String> flags, String masterId, String linkState, List<String> slots) {

        boolean isMaster() {
            return flags.contains("master");
        }

        boolean isReplica() {
            return flags.contains("slave");
        }

        boolean isMyself() {
            return flags.contains("myself");
        }

        /** What is wrong with this entry, or null: failure flags, a handshake, a lost link. */
        String problem() {
            for (String flag : List.of("fail", "fail?", "handshake", "noaddr")) {
                if (flags.contains(flag)) {
                    return "node " + id + " (port " + port + ") is flagged " + String.join(",", flags);
                }
            }
            if (!isMyself() && !"connected".equals(linkState)) {
                return "node " + id + " (port " + port + ") link is " + linkState;
            }
            return null;
        }
    }

    private final List<Node> nodes;

    private ClusterView(List<Node> nodes) {
        this.nodes = List.copyOf(nodes);
    }

    /**
     * Parses the reply of {@code CLUSTER NODES}.
     *
     * @throws IllegalArgumentException when a line has fewer than 8 fields
     */
    static ClusterView parse(String clusterNodes) {
        Objects.requireNonNull(clusterNodes, "clusterNodes");
        List<Node> nodes = new ArrayList<>();
        for (String line : clusterNodes.split("\r?\n")) {
            if (line.isBlank()) {
                continue;
            }
            String[] fields = line.trim().split(" +");
            if (fields.length < 8) {
                throw new IllegalArgumentException("Not a CLUSTER NODES line: '" + line + "'");
            }
            List<String> slots = Arrays.stream(fields, 8, fields.length)
                    .filter(slot -> !slot.startsWith("["))
                    .collect(Collectors.toList());
            nodes.add(new Node(fields[0], port(fields[1]), Set.of(fields[2].split(",")), fields[3], fields[7],
                    List.copyOf(slots)));
        }
        return new ClusterView(nodes);
    }

    /** Every node this view knows, itself included. */
    List<Node> nodes() {
        return nodes;
    }

    /** The entry of the node with {@code id}. */
    Optional<Node> node(String id) {
        return nodes.stream().filter(node -> node.id().equals(id)).findFirst();
    }

    /** The entry flagged {@code myself}. */
    Optional<Node> myself() {
        return nodes.stream().filter(Node::isMyself).findFirst();
    }

    @Override
    public String toString() {
        return nodes.stream()
                .map(node -> node.id() + " :" + node.port() + " " + String.join(",", node.flags()) + " "
                        + node.masterId() + " " + node.linkState() + " " + String.join(" ", node.slots()))
                .collect(Collectors.joining("; "));
    }

    /** The port in {@code ip:port@cport[,hostname]}; -1 when there is none (e.g. noaddr). */
    private static int port(String address) {
        int at = address.indexOf('@');
        String hostAndPort = at < 0 ? address : address.substring(0, at);
        int colon = hostAndPort.lastIndexOf(':');
        try {
            return colon < 0 ? -1 : Integer.parseInt(hostAndPort.substring(colon + 1));
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
