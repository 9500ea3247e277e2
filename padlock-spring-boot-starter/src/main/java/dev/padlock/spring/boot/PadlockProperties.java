package dev.padlock.spring.boot;

import dev.padlock.LockConfig;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.convert.DurationUnit;

/**
 * Padlock's settings under {@code padlock.*}. Where no connection is given here ({@code uri},
 * {@code cluster.nodes} or {@code sentinel.*}), the connection of Spring Boot's
 * {@code spring.data.redis.*} is used, and {@code redis://localhost:6379} when that gives none
 * either.
 *
 * <p>Durations take a unit ({@code 500ms}, {@code 3s}, {@code 1m}); a number without one is
 * seconds. A value below its floor, and a {@code padlock.*} key that is none of these (in
 * application properties, YAML or command-line arguments), fails startup with a message that
 * names the key.
 */
@ConfigurationProperties("padlock")
public class PadlockProperties {
    static final Duration MIN_WATCHDOG_TIMEOUT = Duration.ofSeconds(1);
    static final Duration MIN_COMMAND_TIMEOUT = Duration.ofMillis(100);
    static final Duration MIN_REPLICA_TIMEOUT = Duration.ofMillis(10);
    static final Duration MIN_EXPIRE_AFTER = Duration.ofMillis(100);

    /**
     * Redis URI: redis://, rediss:// (TLS) or redis-sentinel://host:port[,host:port]#master, as
     * Lettuce reads it.
     */
    private String uri;

    /**
     * The client's name in the client registry, which `padlock clients` and `padlock show` print;
     * default: spring.application.name, else the jar's name.
     */
    private String clientName;

    /**
     * The lease of locks taken without one; the watchdog renews it every third. At least 1s; a
     * number without a unit is seconds.
     */
    @DurationUnit(ChronoUnit.SECONDS)
    private Duration watchdogTimeout = Duration.ofSeconds(30);

    /** The bound on one Redis round trip. At least 100ms; a number without a unit is seconds. */
    @DurationUnit(ChronoUnit.SECONDS)
    private Duration commandTimeout = Duration.ofSeconds(3);

    /**
     * Whether the application starts while Redis cannot be reached: the client connects in the
     * background (once a second), lock calls fail at once meanwhile, and the health indicator is
     * DOWN until it connects. Default false: startup fails.
     */
    private boolean startWithoutRedis;

    /**
     * How Padlock's scripts run: eval (the default: EVALSHA) or functions (FCALL of Padlock's
     * Redis Functions library padlock, for a server whose ACL denies EVAL; Redis 7 or later).
     */
    private LockConfig.Scripting scripting = LockConfig.Scripting.EVAL;

    private final Cluster cluster = new Cluster();
    private final Sentinel sentinel = new Sentinel();
    private final ReplicaAcknowledgement replicaAcknowledgement = new ReplicaAcknowledgement();
    private final Metrics metrics = new Metrics();
    private final Integration integration = new Integration();
    private final Shedlock shedlock = new Shedlock();
    private final LockedMethods locked = new LockedMethods();

    public String getUri() {
        return uri;
    }

    public void setUri(String uri) {
        this.uri = uri;
    }

    public String getClientName() {
        return clientName;
    }

    public void setClientName(String clientName) {
        this.clientName = clientName;
    }

    public boolean isStartWithoutRedis() {
        return startWithoutRedis;
    }

    public void setStartWithoutRedis(boolean startWithoutRedis) {
        this.startWithoutRedis = startWithoutRedis;
    }

    public LockConfig.Scripting getScripting() {
        return scripting;
    }

    public void setScripting(LockConfig.Scripting scripting) {
        this.scripting = scripting;
    }

    public Duration getWatchdogTimeout() {
        return watchdogTimeout;
    }

    public void setWatchdogTimeout(Duration watchdogTimeout) {
        this.watchdogTimeout = atLeast("padlock.watchdog-timeout", watchdogTimeout, MIN_WATCHDOG_TIMEOUT);
    }

    public Duration getCommandTimeout() {
        return commandTimeout;
    }

    public void setCommandTimeout(Duration commandTimeout) {
        this.commandTimeout = atLeast("padlock.command-timeout", commandTimeout, MIN_COMMAND_TIMEOUT);
    }

    /** {@code value}, or an exception naming {@code key} and its floor when it is below. */
    static Duration atLeast(String key, Duration value, Duration floor) {
        if (value != null && value.compareTo(floor) < 0) {
            throw new IllegalArgumentException(key + " must be at least " + floor.toMillis() + "ms, got "
                    + value.toMillis() + "ms (a number without a unit is seconds: write 500ms, 3s or 1m)");
        }
        return value;
    }

    public Cluster getCluster() {
        return cluster;
    }

    public Sentinel getSentinel() {
        return sentinel;
    }

    public ReplicaAcknowledgement getReplicaAcknowledgement() {
        return replicaAcknowledgement;
    }

    public Metrics getMetrics() {
        return metrics;
    }

    public Integration getIntegration() {
        return integration;
    }

    public Shedlock getShedlock() {
        return shedlock;
    }

    public LockedMethods getLocked() {
        return locked;
    }

    /** A Redis Cluster. */
    public static class Cluster {
        /** Seed nodes, as host:port or redis://host:port. */
        private List<String> nodes = new ArrayList<>();

        public List<String> getNodes() {
            return nodes;
        }

        public void setNodes(List<String> nodes) {
            this.nodes = nodes;
        }
    }

    /** A Sentinel-managed master. */
    public static class Sentinel {
        /** The master's name, as the Sentinels know it. */
        private String master;

        /** Sentinel nodes, as host:port. */
        private List<String> nodes = new ArrayList<>();

        /** The password of the Redis master (and replicas). */
        private String password;

        public String getMaster() {
            return master;
        }

        public void setMaster(String master) {
            this.master = master;
        }

        public List<String> getNodes() {
            return nodes;
        }

        public void setNodes(List<String> nodes) {
            this.nodes = nodes;
        }

        public String getPassword() {
            return password;
        }

        public void setPassword(String password) {
            this.password = password;
        }
    }

    /** Waiting for replicas to acknowledge each acquisition (Redis WAIT). */
    public static class ReplicaAcknowledgement {
        /** How many replicas must acknowledge; 0 (the default) waits for none. */
        private int replicas;

        /**
         * How long an acquisition waits for its acknowledgements. At least 10ms; a number without
         * a unit is seconds.
         */
        @DurationUnit(ChronoUnit.SECONDS)
        private Duration timeout = Duration.ofSeconds(1);

        public int getReplicas() {
            return replicas;
        }

        public void setReplicas(int replicas) {
            this.replicas = replicas;
        }

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = atLeast("padlock.replica-acknowledgement.timeout", timeout, MIN_REPLICA_TIMEOUT);
        }
    }

    /** Micrometer meters and observations. */
    public static class Metrics {
        /** Whether Padlock's meters are registered (when Micrometer is present). */
        private boolean enabled = true;

        /** Whether acquisitions and holds are observed with the Observation API (when present). */
        private boolean observations = true;

        /**
         * The lock-name tag: none (the default), name (the name as it is: only for a small,
         * fixed set of names) or prefix (the name up to the first name-separator).
         */
        private LockNameTag lockNameTag = LockNameTag.NONE;

        /** Where the prefix of a lock name ends, for lock-name-tag=prefix. */
        private String nameSeparator = ":";

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public boolean isObservations() {
            return observations;
        }

        public void setObservations(boolean observations) {
            this.observations = observations;
        }

        public LockNameTag getLockNameTag() {
            return lockNameTag;
        }

        public void setLockNameTag(LockNameTag lockNameTag) {
            this.lockNameTag = lockNameTag;
        }

        public String getNameSeparator() {
            return nameSeparator;
        }

        public void setNameSeparator(String nameSeparator) {
            this.nameSeparator = nameSeparator;
        }
    }

    /** What the lock-name tag of the meters holds. */
    public enum LockNameTag {
        /** No name tag. */
        NONE,
        /** The lock's name as it is. */
        NAME,
        /** The lock's name up to the first separator. */
        PREFIX
    }

    /** Spring Integration's LockRegistry. */
    public static class Integration {
        /** The prefix of the registry's lock names, registry-key:key. */
        private String registryKey = "padlock";

        /**
         * A fixed lease for locks taken without a ttl, as RedisLockRegistry's expireAfter; unset
         * (the default) holds them with the watchdog's renewed lease. At least 100ms; a number
         * without a unit is seconds.
         */
        @DurationUnit(ChronoUnit.SECONDS)
        private Duration expireAfter;

        public String getRegistryKey() {
            return registryKey;
        }

        public void setRegistryKey(String registryKey) {
            this.registryKey = registryKey;
        }

        public Duration getExpireAfter() {
            return expireAfter;
        }

        public void setExpireAfter(Duration expireAfter) {
            this.expireAfter = atLeast("padlock.integration.expire-after", expireAfter, MIN_EXPIRE_AFTER);
        }
    }

    /** ShedLock's LockProvider. */
    public static class Shedlock {
        /** Put before each job's name to make its Redis key. */
        private String keyPrefix = "shedlock:";

        public String getKeyPrefix() {
            return keyPrefix;
        }

        public void setKeyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
        }
    }

    /** Annotation locking: {@code @dev.padlock.spring.Locked} methods. */
    public static class LockedMethods {
        /** Whether methods annotated with @Locked run under their lock (needs spring-aop). */
        private boolean enabled = true;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }
}
