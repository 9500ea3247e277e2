package dev.padlock.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.padlock.testing.RedisBinary.Choice;
import dev.padlock.testing.ServerVersion.Product;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RedisBinaryTest {

    /** The choice this JVM was started with (-Dpadlock.redis.binary=valkey, say), put back after each test. */
    private String startingChoice;

    @BeforeEach
    void rememberTheChoice() {
        startingChoice = System.getProperty(RedisBinary.CHOICE_PROPERTY);
    }

    @AfterEach
    void restoreTheChoice() {
        if (startingChoice == null) {
            System.clearProperty(RedisBinary.CHOICE_PROPERTY);
        } else {
            System.setProperty(RedisBinary.CHOICE_PROPERTY, startingChoice);
        }
    }

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
        assertTrue(RedisBinary.embeddedOnly());
        assertTrue(RedisBinary.onPath().isEmpty(), "the PATH is skipped");
        assertEquals(RedisBinary.Origin.EMBEDDED, RedisBinary.locate().origin());
        System.setProperty(RedisBinary.CHOICE_PROPERTY, "path");
        assertFalse(RedisBinary.embeddedOnly());
        System.setProperty(RedisBinary.CHOICE_PROPERTY, "embeded");
        assertThrows(IllegalStateException.class, RedisBinary::embeddedOnly, "a misspelt choice is refused");
    }

    @Test
    void theChoiceIsReadFromThePropertyTheIssueNames() {
        assumeTrue(System.getenv(RedisBinary.CHOICE_VARIABLE) == null, "the environment sets the choice");
        assertEquals("padlock.redis.binary", RedisBinary.CHOICE_PROPERTY);
        System.clearProperty(RedisBinary.CHOICE_PROPERTY);
        assertEquals(Choice.PATH, RedisBinary.choice(), "unset");
        System.setProperty(RedisBinary.CHOICE_PROPERTY, " ");
        assertEquals(Choice.PATH, RedisBinary.choice(), "blank");
        System.setProperty(RedisBinary.CHOICE_PROPERTY, "path");
        assertEquals(Choice.PATH, RedisBinary.choice());
        System.setProperty(RedisBinary.CHOICE_PROPERTY, "embedded");
        assertEquals(Choice.EMBEDDED, RedisBinary.choice());
        System.setProperty(RedisBinary.CHOICE_PROPERTY, " Valkey ");
        assertEquals(Choice.VALKEY, RedisBinary.choice());
        assertFalse(RedisBinary.embeddedOnly());
        System.setProperty(RedisBinary.CHOICE_PROPERTY, "redis");
        IllegalStateException refused = assertThrows(IllegalStateException.class, RedisBinary::choice);
        assertTrue(refused.getMessage().contains("'embedded', 'valkey' or 'path'"), refused.getMessage());
    }

    @Test
    void valkeyChoiceTakesValkeyServerFromThePath(@TempDir Path directory) throws IOException {
        Path fake = fakeValkeyServer(directory);

        RedisBinary valkey = RedisBinary.onPath(Choice.VALKEY, "/nonexistent:" + directory).orElseThrow();

        assertEquals(fake.toAbsolutePath(), valkey.path());
        assertEquals(RedisBinary.Origin.PATH, valkey.origin());
        assertEquals(new ServerVersion(Product.VALKEY, "8.0.1"), valkey.serverVersion());
        assertEquals("8.0.1", valkey.version());
        assertEquals(fake.toAbsolutePath(), RedisBinary.locate(Choice.VALKEY, directory.toString()).path());
        assertTrue(RedisBinary.onPath(Choice.PATH, directory.toString()).isEmpty(),
                "valkey-server is not taken for redis-server in the default order");
    }

    @Test
    void valkeyChoiceWithoutValkeyServerFailsAndNamesTheFix(@TempDir Path empty) {
        IllegalStateException onPath = assertThrows(IllegalStateException.class,
                () -> RedisBinary.onPath(Choice.VALKEY, empty.toString()));
        assertTrue(onPath.getMessage().contains("'valkey' but no executable valkey-server is on the PATH"),
                onPath.getMessage());
        assertTrue(onPath.getMessage().contains("apt-get install -t bookworm-backports valkey-server"),
                onPath.getMessage());
        assertThrows(IllegalStateException.class, () -> RedisBinary.locate(Choice.VALKEY, empty.toString()),
                "no fallback to the embedded Redis when Valkey is asked for");
        assertThrows(IllegalStateException.class, () -> RedisBinary.locate(Choice.VALKEY, null));
    }

    @Test
    void valkeyChoiceServesValkey() {
        assumeTrue(System.getenv(RedisBinary.CHOICE_VARIABLE) == null, "the environment sets the choice");
        Optional<RedisBinary> installed = installedValkey();
        assumeTrue(installed.isPresent(), "no valkey-server on the PATH");
        System.setProperty(RedisBinary.CHOICE_PROPERTY, "valkey");
        try (RedisServerProcess server = RedisServerProcess.start();
                RedisAdmin admin = RedisAdmin.connect(server.uri())) {
            assertEquals(installed.get().path(), RedisBinary.locate().path());
            assertEquals(installed.get().path(), server.binary());
            assertEquals(Product.VALKEY, server.serverVersion().product());
            assertEquals(server.version(), admin.infoField("server", "valkey_version"));
            assertTrue(admin.infoField("server", "redis_version").startsWith("7."),
                    "Valkey reports a Redis 7 version for compatibility");
            assertEquals(7, server.majorVersion(), "Redis 7 features are expected of Valkey");
            assertTrue(server.toString().startsWith("valkey-server " + server.version()), server.toString());
        }
    }

    @Test
    void locatePrefersThePath() {
        assumeTrue(RedisBinary.choice() == Choice.PATH, "the choice is not the default order");
        Optional<RedisBinary> onPath = RedisBinary.onPath();
        assumeTrue(onPath.isPresent(), "no redis-server on the PATH");

        assertEquals(onPath.get().path(), RedisBinary.locate().path());
        assertEquals(RedisBinary.Origin.PATH, RedisBinary.locate().origin());
    }

    /** A valkey-server on the PATH, whatever the choice says; empty when none. */
    static Optional<RedisBinary> installedValkey() {
        try {
            return RedisBinary.onPath(Choice.VALKEY, System.getenv("PATH"));
        } catch (IllegalStateException e) {
            return Optional.empty();
        }
    }

    private static Path fakeValkeyServer(Path directory) throws IOException {
        Path fake = directory.resolve("valkey-server");
        Files.writeString(fake, "#!/bin/sh\necho 'Valkey server v=8.0.1 sha=00000000:0 malloc=libc bits=64 build=0'\n");
        try {
            Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwx------"));
        } catch (UnsupportedOperationException e) {
            assumeTrue(false, "no POSIX permissions here");
        }
        return fake;
    }
}
