package dev.padlock.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed certificate for {@code 127.0.0.1} and {@code localhost}, made at test time with
 * the JDK's own {@code keytool} (no extra library), and written where a Redis TLS listener and a
 * Java client want it: the certificate and its private key as PEM files for
 * {@code redis-server}, and a PKCS#12 trust store holding the certificate for the client. The
 * certificate is its own CA.
 */
public final class TlsCertificates {

    private static final String ALIAS = "padlock-test-redis";
    private static final Duration KEYTOOL_TIMEOUT = Duration.ofSeconds(30);

    private final Path certFile;
    private final Path keyFile;
    private final Path trustStore;
    private final char[] trustStorePassword;

    private TlsCertificates(Path certFile, Path keyFile, Path trustStore, char[] trustStorePassword) {
        this.certFile = certFile;
        this.keyFile = keyFile;
        this.trustStore = trustStore;
        this.trustStorePassword = trustStorePassword;
    }

    /**
     * Makes a key pair and certificate valid for a day, in {@code directory}.
     *
     * @throws IllegalStateException when keytool fails or does not finish within 30 s
     */
    public static TlsCertificates create(Path directory) {
        Objects.requireNonNull(directory, "directory");
        char[] password = "padlock-test".toCharArray();
        Path keyStore = directory.resolve("server.p12");
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        runKeytool(List.of(keytool.toString(), "-genkeypair", "-alias", ALIAS,
                "-keyalg", "EC", "-groupname", "secp256r1", "-sigalg", "SHA256withECDSA",
                "-dname", "CN=127.0.0.1", "-ext", "san=ip:127.0.0.1,dns:localhost",
                "-validity", "1", "-storetype", "PKCS12", "-keystore", keyStore.toString(),
                "-storepass", new String(password), "-keypass", new String(password)), directory);
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(keyStore)) {
                store.load(in, password);
            }
            Key key = store.getKey(ALIAS, password);
            Certificate certificate = store.getCertificate(ALIAS);
            if (!(key instanceof PrivateKey) || certificate == null) {
                throw new IllegalStateException("keytool made no key pair in " + keyStore);
            }
            Path certFile = directory.resolve("server.crt");
            Path keyFile = directory.resolve("server.key");
            Files.writeString(certFile, pem("CERTIFICATE", certificate.getEncoded()), StandardCharsets.US_ASCII);
            Files.writeString(keyFile, pem("PRIVATE KEY", key.getEncoded()), StandardCharsets.US_ASCII); // PKCS#8

            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry(ALIAS, certificate);
            Path trustStore = directory.resolve("truststore.p12");
            try (OutputStream out = Files.newOutputStream(trustStore)) {
                trust.store(out, password);
            }
            return new TlsCertificates(certFile, keyFile, trustStore, password);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write the test certificate files in " + directory, e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("Cannot read the key pair keytool made in " + keyStore, e);
        }
    }

    /** The launch options' TLS files: this certificate serves as the server's and as the CA. */
    public RedisLaunchOptions.Tls serverFiles() {
        return new RedisLaunchOptions.Tls(certFile, keyFile, certFile);
    }

    /** The PEM certificate. */
    public Path certFile() {
        return certFile;
    }

    /** The PEM private key (PKCS#8). */
    public Path keyFile() {
        return keyFile;
    }

    /** A PKCS#12 trust store holding the certificate. */
    public Path trustStore() {
        return trustStore;
    }

    /** The trust store's password (a copy). */
    public char[] trustStorePassword() {
        return trustStorePassword.clone();
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    private static void runKeytool(List<String> command, Path directory) {
        Path log = directory.resolve("keytool.log");
        try {
            Process process = new ProcessBuilder(command).directory(directory.toFile())
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!process.waitFor(KEYTOOL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("keytool did not finish within " + KEYTOOL_TIMEOUT);
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException("keytool exited with " + process.exitValue() + ": "
                        + Files.readString(log, StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot run " + command.get(0), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while running keytool", e);
        }
    }
}
