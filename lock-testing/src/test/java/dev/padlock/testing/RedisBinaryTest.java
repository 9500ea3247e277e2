package dev.padlock.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RedisBinaryTest {

    @Test
    void extractsTheEmbeddedBinaryAndItRuns() {
        assumeTrue(RedisBinary.embeddedResourceName().isPresent(), "embedded-redis ships no binary for this platform");

        RedisBinary binary = RedisBinary.embedded().orElseThrow();

        assertEquals(RedisBinary.Origin.EMBEDDED, binary.origin());
        assertTrue(Files.isExecutable(binary.path()), binary.path() + " is executable");
        assertTrue(binary.version().startsWith("6.2."), "version " + binary.version());
        assertEquals(binary.path(), RedisBinary.embedded().orElseThrow().path(), "extracted once per JVM");
    }

    @Test
    void theEmbeddedBinaryServes() {
        Optional<RedisBinary> embedded = RedisBinary.embedded();
        assumeTrue(embedded.isPresent(), "embedded-redis ships no binary for this platform");

        try (RedisServerProcess server = RedisServerProcess.start(embedded.get().path(), List.of());
                RedisAdmin admin = RedisAdmin.connect(server.uri())) {
            assertTrue(admin.ping());
            assertEquals(embedded.get().version(), admin.infoField("server", "redis_version"));
        }
    }

    @Test
    void embeddedChoiceSkipsThePath() {
        assumeTrue(System.getenv(RedisBinary.CHOICE_VARIABLE) == null, "the environment sets the choice");
        assumeTrue(RedisBinary.embeddedResourceName().isPresent(), "embedded-redis ships no binary for this platform");
        System.setProperty(RedisBinary.CHOICE_PROPERTY, "embedded");
        try {
            assertTrue(RedisBinary.embeddedOnly());
            assertTrue(RedisBinary.onPath().isEmpty(), "the PATH is skipped");
            assertEquals(RedisBinary.Origin.EMBEDDED, RedisBinary.locate().origin());
            System.setProperty(RedisBinary.CHOICE_PROPERTY, "path");
            assertFalse(RedisBinary.embeddedOnly());
            System.setProperty(RedisBinary.CHOICE_PROPERTY, "embeded");
            assertThrows(IllegalStateException.class, RedisBinary::embeddedOnly, "a misspelt choice is refused");
        } finally {
            System.clearProperty(RedisBinary.CHOICE_PROPERTY);
        }
    }

    @Test
    void locatePrefersThePath() {
        Optional<RedisBinary> onPath = RedisBinary.onPath();
        assumeTrue(onPath.isPresent(), "no redis-server on the PATH");

        assertEquals(onPath.get().path(), RedisBinary.locate().path());
        assertEquals(RedisBinary.Origin.PATH, RedisBinary.locate().origin());
    }
}
