package dev.padlock.testing;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RedisServerProcessTest {

    private static final Duration SHORT = Duration.ofMillis(300);

    private RedisServerProcess server;

    @BeforeEach
    void startServer() {
        server = RedisServerProcess.start();
    }

    @AfterEach
    void closeServer() {
        server.close();
    }

    @Test
    void startsOnLoopbackAndAnswersPing() {
        assertTrue(server.isRunning());
        assertEquals("redis://127.0.0.1:" + server.port(), server.uri());
        assertEquals(RedisBinary.version(server.binary()), server.version());
        try (RedisAdmin admin = RedisAdmin.connect(server.uri())) {
            assertTrue(admin.ping());
            // Valkey reports its own version in valkey_version, and redis_version 7.2.4
            String versionField = server.serverVersion().product() == ServerVersion.Product.VALKEY
                    ? "valkey_version" : "redis_version";
            assertEquals(server.version(), admin.infoField("server", versionField));
            assertEquals(String.valueOf(server.pid()), admin.infoField("server", "process_id"));
            assertEquals("", admin.commands().configGet("save").get("save"));
            assertEquals("no", admin.commands().configGet("appendonly").get("appendonly"));
        }
    }

    @Test
    void restartKeepsThePortAndAnswersAgain() {
        int port = server.port();
        long pid = server.pid();
        try (RedisAdmin admin = RedisAdmin.connect(server.uri())) {
            admin.commands().set("before-restart", "1");

            server.restart();

            assertEquals(port, server.port());
            assertNotEquals(pid, server.pid());
            assertTrue(admin.ping(), "the admin connection reconnects to the same port");
            assertNull(admin.commands().get("before-restart"), "nothing is persisted");
        }
    }

    @Test
    void restartAfterKillStartsOnTheSamePort() {
        int port = server.port();
        server.kill();
        assertFalse(server.isRunning());

        server.restart();

        assertEquals(port, server.port());
        assertTrue(RespProbe.ping(RedisServerProcess.HOST, port, Duration.ofSeconds(2)));
    }

    @Test
    void pauseMakesCommandsTimeOutAndResumeAnswersThem() {
        RedisURI uri = RedisURI.create(server.uri());
        uri.setTimeout(SHORT);
        RedisClient client = RedisClient.create(uri);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            assertEquals("PONG", connection.sync().ping());

            server.pause();

            assertTrue(server.isPaused());
            assertThrows(RedisCommandTimeoutException.class, () -> connection.sync().ping());
            assertFalse(RespProbe.ping(RedisServerProcess.HOST, server.port(), SHORT));

            server.resume();

            assertFalse(server.isPaused());
            await().atMost(Duration.ofSeconds(5)).until(() -> "PONG".equals(connection.sync().ping()));
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    @Test
    void stopEndsTheProcessById() {
        long pid = server.pid();
        int port = server.port();

        server.stop();

        assertFalse(server.isRunning());
        assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
        assertFalse(RespProbe.ping(RedisServerProcess.HOST, port, SHORT));
        assertThrows(IllegalStateException.class, server::pid);
    }

    @Test
    void stopOfAPausedServerStillEndsIt() {
        long pid = server.pid();
        server.pause();

        server.stop();

        assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
    }

    @Test
    void killEndsTheProcessById() {
        long pid = server.pid();

        server.kill();

        assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
    }

    @Test
    void closeDeletesTheDirectoryAndRefusesARestart() {
        Path directory = server.directory();
        assertTrue(Files.exists(server.logFile()));

        server.close();

        assertFalse(Files.exists(directory));
        assertThrows(IllegalStateException.class, server::restart);
    }

    @Test
    void passesExtraArguments() {
        try (RedisServerProcess custom = RedisServerProcess.start("--maxmemory-policy", "allkeys-lru");
                RedisAdmin admin = RedisAdmin.connect(custom.uri())) {
            Map<String, String> policy = admin.commands().configGet("maxmemory-policy");
            assertEquals("allkeys-lru", policy.get("maxmemory-policy"));
            assertNotEquals(server.port(), custom.port());
        }
    }

    @Test
    void aStartThatFailsShowsTheServersOutputInItsMessage() {
        IllegalStateException failure = assertThrows(IllegalStateException.class,
                () -> RedisServerProcess.start("--no-such-directive", "yes"));

        assertTrue(failure.getMessage().contains("no-such-directive"), failure.getMessage());
    }
}
