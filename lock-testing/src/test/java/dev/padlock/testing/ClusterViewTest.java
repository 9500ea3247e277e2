package dev.padlock.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Parsing {@code CLUSTER NODES}, and the launch options; no Redis needed. */
class ClusterViewTest {

    private static final String NODES = String.join("\n",
            "aaa 127.0.0.1:30001@40001 myself,master - 0 0 1 connected 0-5460",
            "bbb 127.0.0.1:30002@40002,node-b master - 0 1700000000000 2 connected 5461-10922 [10923->-ccc]",
            "ccc 127.0.0.1:30003@40003 master,fail - 1700000000000 1700000000000 3 disconnected",
            "ddd 127.0.0.1:30004@40004 slave aaa 0 1700000000000 1 connected",
            "eee :0@0 handshake,noaddr - 0 0 0 connected",
            "");

    @Test
    void parsesEveryLine() {
        ClusterView view = ClusterView.parse(NODES);

        assertEquals(5, view.nodes().size());
        ClusterView.Node myself = view.myself().orElseThrow();
        assertEquals("aaa", myself.id());
        assertEquals(30001, myself.port());
        assertTrue(myself.isMaster());
        assertEquals(List.of("0-5460"), myself.slots());
        assertNull(myself.problem());

        ClusterView.Node withHostname = view.node("bbb").orElseThrow();
        assertEquals(30002, withHostname.port());
        assertEquals(List.of("5461-10922"), withHostname.slots(), "migrating entries are left out");

        ClusterView.Node replica = view.node("ddd").orElseThrow();
        assertTrue(replica.isReplica());
        assertFalse(replica.isMaster());
        assertEquals("aaa", replica.masterId());
    }

    @Test
    void reportsFailedAndHandshakingNodes() {
        ClusterView view = ClusterView.parse(NODES);

        assertNotNull(view.node("ccc").orElseThrow().problem());
        assertNotNull(view.node("eee").orElseThrow().problem());
        assertEquals(0, view.node("eee").orElseThrow().port());
        assertTrue(view.node("zzz").isEmpty());
    }

    @Test
    void rejectsWhatIsNotClusterNodes() {
        assertThrows(IllegalArgumentException.class,
                () -> ClusterView.parse("ERR this instance has cluster support disabled"));
    }

    @Test
    void launchOptionsTakeOnlyPlainFileNames() {
        RedisLaunchOptions options = RedisLaunchOptions.defaults().withConfigFile("sentinel.conf", "port 0\n");
        assertEquals("sentinel.conf", options.configFileName().orElseThrow());
        assertFalse(options.clusterBusPort());
        assertTrue(options.withClusterBusPort().clusterBusPort());
        assertEquals("sentinel.conf", options.withClusterBusPort().configFileName().orElseThrow());
        assertTrue(RedisLaunchOptions.defaults().configFileName().isEmpty());
        assertThrows(IllegalArgumentException.class, () -> RedisLaunchOptions.defaults().withConfigFile("../x", ""));
        assertThrows(IllegalArgumentException.class, () -> RedisLaunchOptions.defaults().withConfigFile("", ""));
    }
}
