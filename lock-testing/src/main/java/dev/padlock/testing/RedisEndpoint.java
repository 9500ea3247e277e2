package dev.padlock.testing;

import java.util.Objects;
import java.util.Optional;
/**
 * A Redis server a test may use: its URI, where it came from, and, when it is a process this JVM
 * started, the {@link RedisServerProcess} that controls it.
 *
 * <p>Closing the endpoint stops what the provisioner started (the process or the container); an
 * external server is left alone. Thread-safe.
 */
public final class RedisEndpoint implements AutoCloseable {

    private final RedisSource source;
    private final String uri;
    private final RedisServerProcess process;
    private final AutoCloseable owned;

    private RedisEndpoint(RedisSource source, String uri, RedisServerProcess process, AutoCloseable owned) {
        this.source = source;
        this.uri = uri;
        this.process = process;
        this.owned = owned;
    }

    /**
     * A server someone else runs, used as is: not controllable, and left alone by
     * {@link #close()}.
     */
    public static RedisEndpoint external(String uri) {
        return new RedisEndpoint(RedisSource.EXTERNAL_URI, Objects.requireNonNull(uri, "uri"), null, null);
    }

    static RedisEndpoint of(RedisSource source, RedisServerProcess process) {
        return new RedisEndpoint(source, process.uri(), process, process);
    }

    static RedisEndpoint container(String uri, AutoCloseable container) {
        return new RedisEndpoint(RedisSource.TESTCONTAINERS, uri, null, container);
    }

    /** Where this server came from. */
    public RedisSource source() {
        return source;
    }

    /** The URI to connect to, e.g. {@code redis://127.0.0.1:40123}. */
    public String uri() {
        return uri;
    }

    /** Whether {@link #process()} is present: the server can be stopped, restarted, paused. */
    public boolean isControllable() {
        return process != null;
    }

    /** The process behind this endpoint, when this JVM started it. */
    public Optional<RedisServerProcess> process() {
        return Optional.ofNullable(process);
    }

    /**
     * The process behind this endpoint.
     *
     * @throws IllegalStateException when the endpoint is not controllable
     */
    public RedisServerProcess requireProcess() {
        if (process == null) {
            throw new IllegalStateException("Redis at " + uri + " (" + source
                    + ") is not controllable: it cannot be stopped, restarted or paused");
        }
        return process;
    }


    /** A new admin connection to this server; the caller closes it. */
    public RedisAdmin admin() {
        return RedisAdmin.connect(uri);
    }

    /** Stops what the provisioner started; leaves an external server alone. */
    @Override
    public void close() {
        if (owned == null) {
            return;
        }
        try {
            owned.close();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("Cannot stop Redis at " + uri, e);
        }
    }

    @Override
    public String toString() {
        return source + " " + uri + (process != null ? " (" + process.serverVersion() + ")" : "");
    }
}
