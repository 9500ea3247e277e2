package dev.padlock.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class RedisProvisionerTest {

    @Test
    void usesTheBinaryOnThePathWhenNoUriIsGiven() {
        assumeTrue(RedisProvisioner.externalUri().isEmpty(), "an external URI is configured");
        assumeTrue(RedisBinary.onPath().isPresent(), "no redis-server on the PATH");

        try (RedisEndpoint endpoint = RedisProvisioner.provision()) {
            assertEquals(RedisSource.PATH_BINARY, endpoint.source());
            assertTrue(endpoint.isControllable());
            assertEquals(endpoint.requireProcess().uri(), endpoint.uri());
        }
    }

    @Test
    void anExternalUriIsUsedAsIsAndIsNotControllable() {
        assumeTrue(System.getenv(RedisProvisioner.URI_VARIABLE) == null, "the environment sets the URI");
        try (RedisServerProcess server = RedisServerProcess.start()) {
            System.setProperty(RedisProvisioner.URI_PROPERTY, server.uri());
            try (RedisEndpoint endpoint = RedisProvisioner.provision()) {
                assertEquals(RedisSource.EXTERNAL_URI, endpoint.source());
                assertEquals(server.uri(), endpoint.uri());
                assertFalse(endpoint.isControllable());
                assertThrows(IllegalStateException.class, endpoint::requireProcess);

                try (RedisEndpoint own = RedisProvisioner.provision(List.of("--maxmemory-policy", "allkeys-lru"))) {
                    assertNotEquals(RedisSource.EXTERNAL_URI, own.source(), "server arguments need our own server");
                }
            } finally {
                System.clearProperty(RedisProvisioner.URI_PROPERTY);
            }
            assertTrue(server.isRunning(), "closing an external endpoint leaves the server alone");
        }
    }

    @Test
    void startsSeveralIndependentServers() {
        try (RedisServers servers = RedisServers.start(3)) {
            assertEquals(3, servers.size());
            assertEquals(3, new HashSet<>(servers.uris()).size());
            for (int i = 0; i < servers.size(); i++) {
                try (RedisAdmin admin = RedisAdmin.connect(servers.uris().get(i))) {
                    assertTrue(admin.ping());
                    assertEquals(String.valueOf(servers.get(i).pid()), admin.infoField("server", "process_id"));
                }
            }
        }
    }
}
