package dev.padlock.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place that decides where Redis comes from. In order:
 * <ol>
 *   <li>the URI in the environment variable {@value #URI_VARIABLE} (or the system property
 *       {@value #URI_PROPERTY}), used as is and not controllable;</li>
 *   <li>{@code redis-server} on the {@code PATH}, started as a {@link RedisServerProcess}; skipped
 *       when {@value RedisBinary#CHOICE_VARIABLE} is {@code embedded} (see {@link RedisBinary});</li>
 *   <li>the binary shipped in the embedded-redis jar, likewise;</li>
 *   <li>a Testcontainers {@code redis:7} container when Docker is available, not controllable.</li>
 * </ol>
 * A source that fails is skipped and its failure is reported if all of them fail. When
 * {@value RedisBinary#CHOICE_VARIABLE} is {@code valkey}, {@code valkey-server} on the
 * {@code PATH} replaces the second source and nothing follows it: a test asked to run on Valkey
 * fails rather than run on another server.
 */
public final class RedisProvisioner {

    /** The environment variable naming an external Redis to use instead of starting one. */
    public static final String URI_VARIABLE = "PADLOCK_REDIS_URI";
    /** The system property that does the same, checked after the environment variable. */
    public static final String URI_PROPERTY = "padlock.redis.uri";

    private static final Logger LOG = LoggerFactory.getLogger(RedisProvisioner.class);

    private RedisProvisioner() {
    }

    /** A server from the first source that works, external URI included. */
    public static RedisEndpoint provision() {
        return provision(List.of());
    }

    /**
     * A server from the first source that works. With {@code serverArgs} the external URI is
     * skipped, since its configuration cannot be changed.
     *
     * @param serverArgs more {@code redis-server} arguments, e.g. {@code --cluster-enabled yes}
     */
    public static RedisEndpoint provision(List<String> serverArgs) {
        Objects.requireNonNull(serverArgs, "serverArgs");
        Optional<String> external = externalUri();
        if (external.isPresent()) {
            if (serverArgs.isEmpty()) {
                LOG.info("Using external Redis {} from {}", external.get(), URI_VARIABLE);
                return RedisEndpoint.external(external.get());
            }
            LOG.info("Ignoring {}: server arguments {} need a server of our own", URI_VARIABLE, serverArgs);
        }
        return provisionOwn(serverArgs);
    }

    /**
     * A server this JVM starts and controls (never the external URI, never a container): from
     * {@code redis-server} on the {@code PATH}, else the embedded binary.
     *
     * @throws IllegalStateException when neither starts
     */
    public static RedisEndpoint provisionControllable(List<String> serverArgs) {
        List<Exception> failures = new ArrayList<>();
        RedisEndpoint endpoint = tryProcesses(serverArgs, failures);
        if (endpoint != null) {
            return endpoint;
        }
        throw failure("No controllable Redis could be started", failures);
    }

    /** The external URI, when one is configured. */
    public static Optional<String> externalUri() {
        String value = System.getenv(URI_VARIABLE);
        if (value == null || value.isBlank()) {
            value = System.getProperty(URI_PROPERTY);
        }
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
    }

    private static RedisEndpoint provisionOwn(List<String> serverArgs) {
        List<Exception> failures = new ArrayList<>();
        RedisEndpoint endpoint = tryProcesses(serverArgs, failures);
        if (endpoint != null) {
            return endpoint;
        }
        if (ContainerRedis.dockerAvailable()) {
            try {
                RedisEndpoint container = ContainerRedis.start(serverArgs);
                LOG.info("Using Testcontainers {} at {}", ContainerRedis.IMAGE, container.uri());
                return container;
            } catch (RuntimeException e) {
                failures.add(e);
            }
        } else {
            failures.add(new IllegalStateException("Docker is not available for Testcontainers"));
        }
        throw failure("No Redis: set " + URI_VARIABLE + ", put redis-server on the PATH, or start Docker",
                failures);
    }

    private static RedisEndpoint tryProcesses(List<String> serverArgs, List<Exception> failures) {
        Optional<RedisBinary> onPath = RedisBinary.onPath(); // throws for valkey without valkey-server
        if (onPath.isPresent()) {
            try {
                return RedisEndpoint.of(RedisSource.PATH_BINARY,
                        RedisServerProcess.start(onPath.get().path(), serverArgs));
            } catch (RuntimeException e) {
                if (RedisBinary.choice() == RedisBinary.Choice.VALKEY) {
                    throw e; // no other server stands in for the Valkey asked for
                }
                failures.add(e);
            }
        } else {
            failures.add(new IllegalStateException(RedisBinary.embeddedOnly()
                    ? "The PATH is skipped: " + RedisBinary.CHOICE_VARIABLE + " is 'embedded'"
                    : "No redis-server on the PATH"));
        }
        try {
            Optional<RedisBinary> embedded = RedisBinary.embedded();
            if (embedded.isPresent()) {
                return RedisEndpoint.of(RedisSource.EMBEDDED_BINARY,
                        RedisServerProcess.start(embedded.get().path(), serverArgs));
            }
            failures.add(new IllegalStateException("The embedded-redis jar has no binary for "
                    + System.getProperty("os.name") + "/" + System.getProperty("os.arch")));
        } catch (RuntimeException e) {
            failures.add(e);
        }
        return null;
    }

    private static IllegalStateException failure(String message, List<Exception> failures) {
        IllegalStateException exception = new IllegalStateException(message);
        failures.forEach(exception::addSuppressed);
        return exception;
    }
}
