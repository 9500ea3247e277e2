package dev.padlock.tests.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RedisCommandException;
import dev.padlock.RedisUnavailableException;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisBinary;
import dev.padlock.testing.RedisLaunchOptions;
import dev.padlock.testing.RedisServerProcess;
import dev.padlock.testing.TlsCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Padlock over {@code rediss://} against a real {@code redis-server} with a TLS listener and a
 * certificate made at test time, its trust store given through {@link LockConfig.Builder#trustStore}.
 * Skipped, saying why, when the binary was built without TLS.
 */
class TlsTest {
    private static final String PASSWORD = "padlock-secret";
    /** What a whole scenario is given: catches a hang, not a slow machine. */
    private static final Duration BOUND = Duration.ofSeconds(60);

    @TempDir
    static Path certificates;
    private static RedisServerProcess server;
    private static RedisAdmin admin;
    private static TlsCertificates tls;

    @BeforeAll
    static void startTlsServer() {
        RedisBinary binary = RedisBinary.locate();
        assumeTrue(RedisBinary.supportsTls(binary.path()), () -> "redis-server " + binary.version() + " ("
                + binary.path() + ", " + binary.origin() + ") was built without TLS; the TLS tests need a TLS build,"
                + " such as Debian's redis-server");
        tls = TlsCertificates.create(certificates);
        server = RedisServerProcess.start(binary.path(), List.of(),
                RedisLaunchOptions.defaults().withTls(tls.serverFiles()));
        admin = RedisAdmin.connect(server.uri()); // the plain port, for setting up users
    }

    @AfterAll
    static void stop() {
        if (admin != null) {
            admin.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void everyLockKindWorksOverTlsWithTheTrustStoreFromLockConfig() {
        assertThat(server.tlsUri()).startsWith("rediss://127.0.0.1:");
        assertTimeoutPreemptively(BOUND, () -> {
            try (LockClient one = connect(server.tlsUri()); LockClient two = connect(server.tlsUri())) {
                AclScenarios.exerciseEveryKind(one, two, "tls:" + UUID.randomUUID());
            }
        });
    }

    @Test
    void anAclUserOverTlsWithTheMinimalRule() {
        admin.commands().aclLogReset();
        PadlockAcl.setUser(admin, "orders-app", PASSWORD, PadlockAcl.rule("orders:"));
        assertTimeoutPreemptively(BOUND, () -> {
            String uri = PadlockAcl.withUser(server.tlsUri(), "orders-app", PASSWORD);
            try (LockClient one = connect(uri); LockClient two = connect(uri)) {
                AclScenarios.exerciseEveryKind(one, two, "orders:" + UUID.randomUUID());
                assertThatThrownBy(() -> one.getLock("billing:1").tryLock()).isInstanceOf(RedisCommandException.class)
                        .hasMessageContaining("rediss://***@127.0.0.1:")
                        .hasMessageContaining("NOPERM");
            }
        });
        assertThat(PadlockAcl.denials(admin)).as("denied: only the lock outside the user's keys")
                .containsExactly("key billing:1");
    }

    @Test
    void withoutTheTrustStoreTheHandshakeFailsAtOnceNamingTheAddress() {
        assertTimeoutPreemptively(BOUND, () -> assertThatThrownBy(() -> LockClient.create(LockConfig.builder()
                        .redisUri(server.tlsUri()).commandTimeout(Duration.ofSeconds(2)).build()))
                .isInstanceOf(RedisUnavailableException.class)
                .hasMessageContaining("connect at " + server.tlsUri()));
    }

    @Test
    void aTrustStoreThatIsNotAFileFailsAtTheBuilder() {
        Path missing = certificates.resolve("no-such-truststore.p12");
        assertThat(Files.exists(missing)).isFalse();
        assertThatThrownBy(() -> LockConfig.builder().trustStore(missing, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(missing.toString());
    }

    private static LockClient connect(String uri) {
        return LockClient.create(LockConfig.builder()
                .redisUri(uri)
                .trustStore(tls.trustStore(), tls.trustStorePassword())
                .commandTimeout(Duration.ofSeconds(3))
                .watchdogTimeout(Duration.ofMillis(1_500)) // short, and renewed often enough for a busy machine
                .build());
    }
}
