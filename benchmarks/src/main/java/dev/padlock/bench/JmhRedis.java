package dev.padlock.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * What one JMH trial runs on: a redis-server of its own ({@link BenchServers}, from the
 * {@code redis-server} on the {@code PATH}, else the embedded-redis binary; never an external
 * Redis, never port 6379) and one client of the library measured. A benchmark's
 * {@code @State(Scope.Benchmark)} makes one in {@code @Setup(Level.Trial)} and closes it in
 * {@code @TearDown(Level.Trial)}, so nothing outlives the trial; should a fork die first,
 * lock-testing's shutdown hook stops the server.
 *
 * <p>Confined to JMH's setup and tear-down; the client it hands out is thread-safe.
 */
final class JmhRedis implements AutoCloseable {

    private final BenchServers servers;
    private final LockLibrary.Client client;

    private JmhRedis(BenchServers servers, LockLibrary.Client client) {
        this.servers = servers;
        this.client = client;
    }

    /**
     * Starts a server and connects a client of {@code library} ({@code Padlock} or
     * {@code Redisson}, any case) to it.
     *
     * @throws IllegalArgumentException for an unknown library, before anything starts
     */
    static JmhRedis start(String library) {
        LockLibrary chosen = LockLibrary.byName(Objects.requireNonNull(library, "library"));
        BenchServers servers = BenchServers.start(Topology.SINGLE, Optional.empty());
        try {
            return new JmhRedis(servers, chosen.connect(servers.target()));
        } catch (RuntimeException e) {
            try {
                servers.close();
            } catch (RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    /**
     * A lock of {@code kind} named after {@code tag}; a multi or red lock gets
     * {@value LockKind#COMPOSITE_SIZE} names.
     */
    BenchLock lock(LockKind kind, String tag) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < kind.locks(); i++) {
            names.add(BenchContext.lockName("jmh-" + tag + "-" + kind.name().toLowerCase(Locale.ROOT), i));
        }
        return client.lock(kind, names);
    }

    /**
     * The kind a {@code @Param kind} names: {@code plain} is {@link LockKind#LOCK}, the others go
     * by their enum names, any case. Parse it before {@link #start}, so that a typo starts nothing.
     *
     * @throws IllegalArgumentException for an unknown kind
     */
    static LockKind kind(String kind) {
        if ("plain".equalsIgnoreCase(kind)) {
            return LockKind.LOCK;
        }
        try {
            return LockKind.valueOf(kind.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Unknown kind '" + kind
                    + "', expected plain, fair, read, write, fenced, spin, multi or red", e);
        }
    }

    /** Closes the client, then stops the server; a failure of the second is suppressed by the first's. */
    @Override
    public void close() {
        RuntimeException failure = null;
        try {
            client.close();
        } catch (RuntimeException e) {
            failure = e;
        }
        try {
            servers.close();
        } catch (RuntimeException e) {
            if (failure == null) {
                failure = e;
            } else {
                failure.addSuppressed(e);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
