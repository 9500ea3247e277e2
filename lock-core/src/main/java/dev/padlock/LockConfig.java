package dev.padlock;

import static java.util.Objects.requireNonNull;

import dev.padlock.internal.base.RedisUris;
import dev.padlock.internal.base.Require;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Immutable settings of a {@link LockClient}, made by {@link #builder()}.
 *
 * <pre>{@code
 * LockConfig config = LockConfig.builder()
 *         .redisUri("redis://127.0.0.1:6379")
 *         .watchdogTimeout(Duration.ofSeconds(30))
 *         .commandTimeout(Duration.ofSeconds(3))
 *         .build();
 * }</pre>
 */
public final class LockConfig {
    /** The lease of {@code lock()} and the other methods that take no lease. */
    public static final Duration DEFAULT_WATCHDOG_TIMEOUT = Duration.ofSeconds(30);
    /** The bound on one Redis round trip. */
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(3);
    /** How long past the holder's lease a silent fair-lock waiter keeps its place. */
    public static final Duration DEFAULT_FAIR_WAITER_TIMEOUT = Duration.ofSeconds(5);
    /** The longest timeout accepted: {@code Integer.MAX_VALUE} milliseconds, about 24.8 days. */
    public static final Duration MAX_TIMEOUT = Duration.ofMillis(Integer.MAX_VALUE);

    private final @Nullable String redisUri;
    private final List<String> clusterUris;
    private final Duration watchdogTimeout;
    private final Duration commandTimeout;
    private final Duration fairWaiterTimeout;
    private final int acknowledgingReplicas;
    private final Duration acknowledgementTimeout;
    private final @Nullable LeaseLostListener leaseLostListener;
    private final @Nullable LockObserver observer;
    private final @Nullable Path trustStore;
    private final char @Nullable [] trustStorePassword;
    private final boolean clientRegistry;
    private final boolean startWithoutRedis;
    private final @Nullable String applicationName;
    private final Scripting scripting;
    /** How a client runs Padlock's Lua scripts; the on-Redis format is the same either way. */
    public enum Scripting {
        /** {@code EVALSHA}, each script sent with {@code EVAL} when Redis answers {@code NOSCRIPT}. */
        EVAL,
        /**
         * One Redis Functions library, {@code padlock_<version>}, loaded with {@code FUNCTION LOAD} (at connect, on every
         * master, and where a call finds it missing), called with {@code FCALL}: an ACL user needs {@code +fcall}, not
         * {@code +eval}/{@code +evalsha}. Redis 7 or later, or Valkey; see docs/user-guide/configuration.md.
         */
        FUNCTIONS
    }

    private LockConfig(Builder b) {
        this.redisUri = b.redisUri;
        this.clusterUris = b.clusterUris;
        this.watchdogTimeout = b.watchdogTimeout;
        this.commandTimeout = b.commandTimeout;
        this.fairWaiterTimeout = b.fairWaiterTimeout;
        this.acknowledgingReplicas = b.acknowledgingReplicas;
        this.acknowledgementTimeout = b.acknowledgementTimeout;
        this.leaseLostListener = b.leaseLostListener;
        this.observer = b.observer;
        this.trustStore = b.trustStore;
        this.trustStorePassword = b.trustStorePassword == null ? null : b.trustStorePassword.clone();
        this.clientRegistry = b.clientRegistry;
        this.startWithoutRedis = b.startWithoutRedis;
        this.applicationName = b.applicationName;
        this.scripting = b.scripting;
    }

    /** {@return a builder with the defaults, which needs a {@code redisUri} or {@code clusterUris}} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return the single-server or Sentinel URI; empty when the client is configured for a Cluster} */
    public Optional<String> redisUri() {
        return Optional.ofNullable(redisUri);
    }

    /** {@return the Cluster seed URIs; empty when the client talks to a single server or Sentinel} */
    public List<String> clusterUris() {
        return clusterUris;
    }

    /** {@return the watchdog lease: the lease of the methods that take none, renewed every third of it} */
    public Duration watchdogTimeout() {
        return watchdogTimeout;
    }

    /** {@return the bound on one Redis round trip} */
    public Duration commandTimeout() {
        return commandTimeout;
    }

    /**
     * {@return the value given to {@link Builder#fairWaiterTimeout(Duration)}, which is not used}
     *
     * @deprecated has no effect: see {@link Builder#fairWaiterTimeout(Duration)}
     */
    @Deprecated
    public Duration fairWaiterTimeout() {
        return fairWaiterTimeout;
    }

    /** {@return how many replicas must acknowledge an acquisition; 0 (the default) when none must} */
    public int acknowledgingReplicas() {
        return acknowledgingReplicas;
    }

    /** {@return how long an acquisition waits for its replica acknowledgements; zero when none are asked for} */
    public Duration acknowledgementTimeout() {
        return acknowledgementTimeout;
    }

    /** {@return the listener told of lost watchdog leases; empty when none is set} */
    public Optional<LeaseLostListener> leaseLostListener() {
        return Optional.ofNullable(leaseLostListener);
    }

    /** {@return the observer told of every acquisition, release and renewal; empty when none is set} */
    public Optional<LockObserver> observer() {
        return Optional.ofNullable(observer);
    }

    /**
     * {@return the trust store that verifies the servers' certificates on {@code rediss://}
     * connections; empty when the JVM's default trust store (the {@code javax.net.ssl.trustStore}
     * system property, else the JDK's {@code cacerts}) does}
     */
    public Optional<Path> trustStore() {
        return Optional.ofNullable(trustStore);
    }

    /** {@return a copy of the trust store's password; empty when none was given} */
    public Optional<char[]> trustStorePassword() {
        return Optional.ofNullable(trustStorePassword).map(char[]::clone);
    }

    /** {@return whether the client records who it is in the client registry; see {@link Builder#clientRegistry}} */
    public boolean clientRegistry() {
        return clientRegistry;
    }

    /**
     * {@return whether {@link LockClient#create} returns while Redis cannot be reached; see
     * {@link Builder#startWithoutRedis}}
     */
    public boolean startWithoutRedis() {
        return startWithoutRedis;
    }

    /**
     * {@return the application name given to the client registry; empty for the default, see
     * {@link Builder#applicationName}}
     */
    public Optional<String> applicationName() {
        return Optional.ofNullable(applicationName);
    }

    /** {@return how the client runs its scripts; see {@link Builder#scripting}} */
    public Scripting scripting() {
        return scripting;
    }

    @Override
    public String toString() {
        return "LockConfig{" + (redisUri != null ? "redisUri=" + RedisUris.redact(redisUri) : "clusterUris=" + clusterUris.size() + " seeds")
                + ", watchdogTimeout=" + watchdogTimeout + ", commandTimeout=" + commandTimeout + ", fairWaiterTimeout=" + fairWaiterTimeout
                + (acknowledgingReplicas > 0 ? ", acknowledgingReplicas=" + acknowledgingReplicas
                        + ", acknowledgementTimeout=" + acknowledgementTimeout : "")
                + (trustStore != null ? ", trustStore=" + trustStore : "")
                + (clientRegistry ? "" : ", clientRegistry=false")
                + (startWithoutRedis ? ", startWithoutRedis=true" : "")
                + (applicationName != null ? ", applicationName=" + applicationName : "")
                + (scripting == Scripting.EVAL ? "" : ", scripting=" + scripting) + '}';
    }

    /** Builds a {@link LockConfig}. Not thread-safe. */
    public static final class Builder {
        private @Nullable String redisUri;
        private List<String> clusterUris = List.of();
        private Duration watchdogTimeout = DEFAULT_WATCHDOG_TIMEOUT;
        private Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;
        private Duration fairWaiterTimeout = DEFAULT_FAIR_WAITER_TIMEOUT;
        private int acknowledgingReplicas;
        private Duration acknowledgementTimeout = Duration.ZERO;
        private @Nullable LeaseLostListener leaseLostListener;
        private @Nullable LockObserver observer;
        private @Nullable Path trustStore;
        private char @Nullable [] trustStorePassword;
        private boolean clientRegistry = true;
        private boolean startWithoutRedis;
        private @Nullable String applicationName;
        private Scripting scripting = Scripting.EVAL;

        private Builder() {
        }

        /**
         * One Redis server ({@code redis://}, {@code rediss://} for TLS) or a Sentinel-managed one
         * ({@code redis-sentinel://host:port[,host:port]#masterName}), as Lettuce reads URIs.
         *
         * @param uri the server's URI
         * @return this builder
         */
        public Builder redisUri(String uri) {
            requireNonNull(uri, "uri");
            Require.argument(!uri.isBlank(), "redisUri must not be blank");
            this.redisUri = uri;
            return this;
        }

        /**
         * Seed nodes of a Redis Cluster, each a {@code redis://} or {@code rediss://} URI.
         *
         * @param uris at least one seed URI
         * @return this builder
         */
        public Builder clusterUris(String... uris) {
            requireNonNull(uris, "uris");
            Require.argument(uris.length > 0, "clusterUris needs at least one seed URI");
            for (String uri : uris) {
                requireNonNull(uri, "clusterUris element");
                Require.argument(!uri.isBlank(), "clusterUris must not contain a blank URI");
            }
            this.clusterUris = List.of(uris);
            return this;
        }

        /**
         * The lease given when none is asked for; the watchdog renews such leases every third of
         * it until unlock. Default 30 s; at least 30 ms.
         *
         * @param timeout the watchdog lease
         * @return this builder
         */
        public Builder watchdogTimeout(Duration timeout) {
            requireMillis(timeout, 30, "watchdogTimeout");
            this.watchdogTimeout = timeout;
            return this;
        }

        /**
         * The bound on one Redis round trip, and on the connection handshake; default 3 s; at least
         * 1 ms, at most {@link #MAX_TIMEOUT}.
         *
         * @param timeout the bound on one round trip
         * @return this builder
         */
        public Builder commandTimeout(Duration timeout) {
            requireMillis(timeout, 1, "commandTimeout");
            this.commandTimeout = timeout;
            return this;
        }

        /**
         * No longer used: a fair lock passes over a waiter whose client is gone at once, and a
         * grant to a client that stopped acting lasts the lease its waiter asked for, as for a holder
         * that stopped. Kept so that configurations that set it still build; at least 10 ms.
         *
         * @deprecated has no effect
         * @param timeout ignored, at least 10 ms
         * @return this builder
         */
        @Deprecated
        public Builder fairWaiterTimeout(Duration timeout) {
            requireMillis(timeout, 10, "fairWaiterTimeout");
            this.fairWaiterTimeout = timeout;
            return this;
        }

        /**
         * Makes every acquisition wait until {@code replicas} replicas of the lock's master have
         * acknowledged it (Redis {@code WAIT}), at most {@code timeout}, before it counts as held.
         * When fewer acknowledge in time, the acquisition is released again and the call fails
         * with {@link ReplicaAcknowledgementException}. A lock so acquired survives a failover to
         * any of the acknowledging replicas. It costs one more round trip per acquisition, during
         * which this client's other commands to that master wait behind the {@code WAIT}; locks
         * then always ask Redis, with no local hand-off between owners of one client.
         *
         * <p>Not a guarantee of linearizability: Redis replication stays asynchronous, a failover
         * may still promote a replica that had not acknowledged, and a lease can still run out
         * while its holder is paused. Fenced tokens are the answer to that.
         *
         * @param replicas at least 1
         * @param timeout at least 1 ms, at most {@link #MAX_TIMEOUT}
         * @return this builder
         */
        public Builder replicaAcknowledgement(int replicas, Duration timeout) {
            Require.argument(replicas >= 1, "replicas must be at least 1, was %d", replicas);
            requireMillis(timeout, 1, "acknowledgement timeout");
            this.acknowledgingReplicas = replicas;
            this.acknowledgementTimeout = timeout;
            return this;
        }

        private static void requireMillis(Duration timeout, long min, String name) {
            requireNonNull(timeout, "timeout");
            Require.argument(timeout.compareTo(Duration.ofMillis(min)) >= 0,
                    "%s must be at least %d ms, was %s", name, min, timeout);
            Require.argument(timeout.compareTo(MAX_TIMEOUT) <= 0,
                    "%s must be at most %s, was %s", name, MAX_TIMEOUT, timeout);
        }

        /**
         * Called when the watchdog finds a renewed lease lost; see {@link LeaseLostListener}.
         *
         * @param listener the listener
         * @return this builder
         */
        public Builder leaseLostListener(LeaseLostListener listener) {
            this.leaseLostListener = requireNonNull(listener, "listener");
            return this;
        }

        /**
         * Tells {@code observer} of every acquisition, release, renewal and lost lease of the
         * client's locks, on Padlock's threads; see {@link LockObserver}. Without one (the
         * default) nothing is observed and nothing is paid for it.
         *
         * @param observer the observer
         * @return this builder
         */
        public Builder observer(LockObserver observer) {
            this.observer = requireNonNull(observer, "observer");
            return this;
        }

        /**
         * The trust store (a PKCS#12 or JKS file) whose certificates verify the servers on
         * {@code rediss://} connections, in place of the JVM's default trust store. The server's
         * host name (or IP address) must match its certificate. Read when the client connects.
         *
         * <pre>{@code
         * LockConfig.builder()
         *         .redisUri("rediss://padlock:secret@redis.example.com:6380")
         *         .trustStore(Path.of("/etc/padlock/redis-ca.p12"), "changeit".toCharArray())
         *         .build();
         * }</pre>
         *
         * <p>Make the store with {@code keytool -importcert} (a PKCS#12 store that
         * {@code openssl pkcs12 -export -nokeys} writes loads in Java as empty); the client sends no
         * certificate of its own, so the server must not demand one ({@code tls-auth-clients no} or
         * {@code optional}): docs/operating/tls-and-acl.md walks a first setup.
         *
         * @param file a readable file
         * @param password the store's password, copied; {@code null} only for a store written
         *     without one ({@code keytool} always sets one, and a PKCS#12 store it wrote, read
         *     without its password, holds no certificate)
         * @return this builder
         * @throws IllegalArgumentException when {@code file} is not a readable file
         */
        public Builder trustStore(Path file, char @Nullable [] password) {
            requireNonNull(file, "file");
            Require.argument(Files.isRegularFile(file) && Files.isReadable(file),
                    "trustStore must be a readable file, got %s", file);
            this.trustStore = file;
            this.trustStorePassword = password == null ? null : password.clone();
            return this;
        }

        /**
         * Whether the client records who it is in the client registry, so that the {@code padlock}
         * command can name the application, host and process behind a lock's owner field. On by
         * default. The entry is the hash {@code padlock_client:<clientId>} (id, application, host,
         * pid, Padlock version, start time, watchdog timeout), written when the client starts and
         * again every 20 s with a TTL of 60 s, so a client that dies leaves it at most a minute;
         * {@link LockClient#close()} deletes it. It costs two commands (one round trip) per client
         * every 20 s and nothing on any lock operation. An ACL user needs the key pattern
         * {@code padlock_client:*} for it; without it the entry is missing (logged at WARN) and
         * locks still work.
         *
         * @param enabled whether to record the client
         * @return this builder
         */
        public Builder clientRegistry(boolean enabled) {
            this.clientRegistry = enabled;
            return this;
        }

        /**
         * Whether {@link LockClient#create} returns a client while Redis cannot be reached (default
         * false: it throws {@link RedisUnavailableException}). Such a client connects in the
         * background, trying once a second and logging once at WARN and once at INFO when it
         * connects; until then every lock call fails at once with a
         * {@link RedisUnavailableException} that says so (nothing waits for the connection), and
         * {@link LockClient#getId()} already has the id the client will use.
         *
         * @param enabled whether to start while Redis cannot be reached
         * @return this builder
         */
        public Builder startWithoutRedis(boolean enabled) {
            this.startWithoutRedis = enabled;
            return this;
        }

        /**
         * The application name the client registry gives this client. Default: the system property
         * {@code padlock.application.name}, else {@code spring.application.name}, else the simple
         * name of the JVM's main class (or the name of the jar it runs).
         *
         * @param name the name, not blank; stripped
         * @return this builder
         */
        public Builder applicationName(String name) {
            requireNonNull(name, "name");
            Require.argument(!name.isBlank(), "applicationName must not be blank");
            this.applicationName = name.strip();
            return this;
        }

        /**
         * How the client runs its scripts: {@link Scripting#EVAL} (the default), or {@link Scripting#FUNCTIONS} where
         * the ACL denies {@code EVAL}; then {@link LockClient#create} fails with {@link RedisCommandException} on a server
         * without functions (Redis 6.2), or when the library is missing and the user may not load it.
         *
         * @param scripting the way to run scripts
         * @return this builder
         */
        public Builder scripting(Scripting scripting) {
            this.scripting = requireNonNull(scripting, "scripting");
            return this;
        }

        /**
         * Builds the settings.
         *
         * @return the settings
         * @throws IllegalArgumentException when neither or both of {@code redisUri} and
         *     {@code clusterUris} were given
         */
        public LockConfig build() {
            Require.argument(redisUri == null || clusterUris.isEmpty(),
                    "give either redisUri or clusterUris, not both");
            Require.argument(redisUri != null || !clusterUris.isEmpty(),
                    "give redisUri (one server or Sentinel) or clusterUris (Cluster seeds)");
            return new LockConfig(this);
        }
    }
}
