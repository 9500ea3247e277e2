package dev.padlock.testing;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * How {@link RedisServerProcess#start(java.nio.file.Path, java.util.List, RedisLaunchOptions)}
 * launches a server, beyond its command-line arguments. Immutable; each {@code with...} method
 * returns a copy.
 *
 * <ul>
 *   <li>{@link #withConfigFile(String, String)}: a configuration file written into the server's
 *       own directory before its first start and passed as the first argument, before every
 *       {@code --option}. A Sentinel needs one (it rewrites it), and it survives a
 *       {@link RedisServerProcess#restart()}.</li>
 *   <li>{@link #withClusterBusPort()}: the server is a cluster node, which also listens on its
 *       port + 10000; the port is picked so that this bus port exists and is free too.</li>
 *   <li>{@link #withTls(Tls)}: the server also listens for TLS on a second free port
 *       ({@link RedisServerProcess#tlsUri()}), with the given certificate, and does not ask
 *       clients for one. The plain port stays open for the fixture's readiness probe and admin
 *       connections.</li>
 * </ul>
 */
public final class RedisLaunchOptions {

    /** The offset of a cluster node's bus port from its client port. */
    public static final int CLUSTER_BUS_OFFSET = 10_000;

    private static final RedisLaunchOptions DEFAULTS = new RedisLaunchOptions(null, null, false, null);

    /**
     * The PEM files of a TLS listener: the server's certificate and private key, and the CA
     * certificates that would verify clients (Redis wants one even when it asks clients for none).
     */
    public record Tls(Path certFile, Path keyFile, Path caCertFile) {
        public Tls {
            Objects.requireNonNull(certFile, "certFile");
            Objects.requireNonNull(keyFile, "keyFile");
            Objects.requireNonNull(caCertFile, "caCertFile");
        }
    }

    private final String configFileName;
    private final String configText;
    private final boolean clusterBusPort;
    private final Tls tls;

    private RedisLaunchOptions(String configFileName, String configText, boolean clusterBusPort, Tls tls) {
        this.configFileName = configFileName;
        this.configText = configText;
        this.clusterBusPort = clusterBusPort;
        this.tls = tls;
    }

    /** No configuration file, any free port. */
    public static RedisLaunchOptions defaults() {
        return DEFAULTS;
    }

    /**
     * These options with a configuration file.
     *
     * @param fileName a plain file name, e.g. {@code sentinel.conf}
     * @param text the file's contents
     * @throws IllegalArgumentException when {@code fileName} is empty or names a path
     */
    public RedisLaunchOptions withConfigFile(String fileName, String text) {
        Objects.requireNonNull(fileName, "fileName");
        Objects.requireNonNull(text, "text");
        if (fileName.isEmpty() || fileName.contains("/") || fileName.contains("\\")
                || fileName.equals(".") || fileName.equals("..")) {
            throw new IllegalArgumentException("fileName must be a plain file name, got '" + fileName + "'");
        }
        return new RedisLaunchOptions(fileName, text, clusterBusPort, tls);
    }

    /** These options with a port whose cluster bus port (+ 10000) is valid and free. */
    public RedisLaunchOptions withClusterBusPort() {
        return new RedisLaunchOptions(configFileName, configText, true, tls);
    }

    /**
     * These options with a TLS listener on a second port; see {@link RedisBinary#supportsTls}
     * for whether the binary can.
     */
    public RedisLaunchOptions withTls(Tls files) {
        return new RedisLaunchOptions(configFileName, configText, clusterBusPort, Objects.requireNonNull(files, "files"));
    }

    /** The TLS listener's files, when the server has one. */
    public Optional<Tls> tls() {
        return Optional.ofNullable(tls);
    }

    /** The configuration file's name, when there is one. */
    public Optional<String> configFileName() {
        return Optional.ofNullable(configFileName);
    }

    /** The configuration file's contents, when there is one. */
    public Optional<String> configText() {
        return Optional.ofNullable(configText);
    }

    /** Whether the port must leave room for a cluster bus port. */
    public boolean clusterBusPort() {
        return clusterBusPort;
    }

    @Override
    public String toString() {
        return "RedisLaunchOptions[configFile=" + configFileName + ", clusterBusPort=" + clusterBusPort
                + ", tls=" + (tls != null) + "]";
    }
}
