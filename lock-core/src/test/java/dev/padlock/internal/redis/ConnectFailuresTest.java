package dev.padlock.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.padlock.RedisUnavailableException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/**
 * The cases {@code ConnectFailureMessagesTest} (lock-tests) cannot make against a real server
 * cheaply: Cluster's suppressed failures, unknown hosts, expired certificates, handshake timeouts,
 * and what nothing matches. The real servers' cases are there.
 */
class ConnectFailuresTest {
    private static final ConnectFailures CONNECTS = ConnectFailures.of(Path.of("/etc/padlock/ca.p12"), 3);
    private static final String ADDRESS = "redis://10.1.2.3:6379";

    @Test
    void aWrongPasswordIsNamedBeforeTheAddress() {
        assertThat(CONNECTS.describe(unableToConnect(new RedisCommandExecutionException(
                "WRONGPASS invalid username-password pair or user is disabled."))))
                .startsWith("authentication failed: Redis answered WRONGPASS");
    }

    @Test
    void aRefusedDatabaseNamesTheDatabaseWhenKnown() {
        RedisConnectionException failure = unableToConnect(new RedisCommandExecutionException("ERR DB index is out of range"));

        assertThat(CONNECTS.describe(failure)).startsWith("selecting database 3 failed: Redis answered ERR DB index");
        assertThat(ConnectFailures.UNCONFIGURED.describe(failure)).startsWith("selecting the database failed");
    }

    @Test
    void anotherRefusalOfTheSetUpIsQuoted() {
        assertThat(CONNECTS.describe(unableToConnect(new RedisCommandExecutionException(
                "NOPERM User app has no permissions to run the 'hello' command"))))
                .isEqualTo("the connection's set-up was refused: Redis answered NOPERM User app has no permissions to"
                        + " run the 'hello' command");
    }

    @Test
    void aClusterSeedsSuppressedFailureIsFoundAndTranslatedAsUnavailable() {
        RedisException cluster = new RedisException("Cannot retrieve cluster partitions from [redis://10.1.2.3:7000]");
        cluster.addSuppressed(unableToConnect(new RedisCommandExecutionException("NOAUTH Authentication required.")));

        RuntimeException translated = RedisErrors.translate(cluster, "connect", ADDRESS, CONNECTS);

        assertThat(translated).isExactlyInstanceOf(RedisUnavailableException.class).hasCause(cluster)
                .hasMessage("connect at " + ADDRESS + " failed: authentication required (no password given): Redis"
                        + " answered NOAUTH Authentication required.");
    }

    @Test
    void anotherRedisExceptionKeepsItsMessage() {
        RedisException closed = new RedisException("Connection closed");

        assertThat(RedisErrors.translate(closed, "PING", ADDRESS, CONNECTS))
                .hasMessage("PING at " + ADDRESS + " failed: Connection closed");
    }

    @Test
    void aTrustStoreWithAnotherPasswordIsNamedWithItsFile() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.store(bytes, "right".toCharArray());
        Throwable wrong = catchThrowable(() -> KeyStore.getInstance("PKCS12")
                .load(new ByteArrayInputStream(bytes.toByteArray()), "wrong".toCharArray()));
        assertThat(wrong).isInstanceOf(IOException.class);

        assertThat(CONNECTS.describe(unableToConnect(wrong)))
                .startsWith("trust store /etc/padlock/ca.p12 cannot be read: wrong password");
    }

    @Test
    void anIoExceptionThatNoKeyStoreThrewIsNotTheTrustStores() {
        assertThat(CONNECTS.describe(new IOException("Connection reset by peer")))
                .isEqualTo("cannot reach Redis: Connection reset by peer");
    }

    @Test
    void theJvmsDefaultTrustStoreIsNamedSoWhenNoneIsConfigured() {
        Throwable untrusted = handshake(new CertificateException("PKIX path building failed",
                new java.security.cert.CertPathBuilderException("unable to find valid certification path")));

        assertThat(ConnectFailures.of(null, 0).describe(unableToConnect(untrusted)))
                .isEqualTo("TLS handshake failed: the server's certificate is not trusted by the JVM's default trust"
                        + " store (PKIX path building failed)");
    }

    @Test
    void anExpiredCertificateIsToldAsExpiredNotAsUntrusted() {
        CertPathValidatorException expired = new CertPathValidatorException("validity check failed",
                new CertificateExpiredException("NotAfter: Mon Jan 01 00:00:00 UTC 2024"), null, -1,
                CertPathValidatorException.BasicReason.EXPIRED);

        assertThat(CONNECTS.describe(unableToConnect(handshake(new CertificateException("PKIX path validation failed",
                expired))))).startsWith("TLS handshake failed: the server's certificate has expired (");
    }

    @Test
    void aHandshakeThatTimesOutSaysSo() {
        assertThat(CONNECTS.describe(unableToConnect(new SSLHandshakeException("handshake timed out after 3000ms"))))
                .isEqualTo("TLS handshake failed: handshake timed out after 3000ms");
    }

    @Test
    void anUnknownHostIsNamed() {
        assertThat(CONNECTS.describe(unableToConnect(new UnknownHostException("redis.invalid"))))
                .isEqualTo("cannot reach Redis: unknown host redis.invalid");
    }

    @Test
    void aRefusedConnectionWithoutAnAddressSaysNothingListensThere() {
        assertThat(CONNECTS.describe(unableToConnect(new ConnectException("Connection refused"))))
                .isEqualTo("cannot reach Redis: connection refused: nothing listens there");
    }

    @Test
    void whatNothingMatchesGivesTheInnermostCauseInsteadOfLettucesUnresolvedAddress() {
        assertThat(CONNECTS.describe(unableToConnect(new ClosedChannelException())))
                .isEqualTo("cannot reach Redis: ClosedChannelException");
    }

    @Test
    void aCycleOfCausesEnds() {
        IOException one = new IOException("one");
        IOException two = new IOException("two", one);
        one.initCause(two);

        assertThat(CONNECTS.describe(one)).isEqualTo("cannot reach Redis: one");
    }

    private static RedisConnectionException unableToConnect(Throwable cause) {
        return new RedisConnectionException("Unable to connect to 10.1.2.3/<unresolved>:6379", cause);
    }

    private static SSLHandshakeException handshake(Throwable cause) {
        SSLHandshakeException handshake = new SSLHandshakeException(cause.getMessage());
        handshake.initCause(cause);
        return handshake;
    }
}
