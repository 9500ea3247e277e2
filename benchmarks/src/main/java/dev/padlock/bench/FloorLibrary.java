package dev.padlock.bench;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The floor: the least a lock in the format of Redisson's {@code RLock} costs. Two bare Lua
 * scripts, {@code floor_acquire.lua} and {@code floor_release.lua} (resources next to this class,
 * each with its {@code KEYS}/{@code ARGV}/returns header), run with {@code EVALSHA} over one
 * Lettuce connection with synchronous commands: an uncontended pair is 2 round trips and 8 Redis
 * calls ({@code EXISTS}, {@code HINCRBY}, {@code PEXPIRE}; {@code HINCRBY}, {@code DEL},
 * {@code PUBLISH redisson_lock__channel:{name} 0}). No watchdog, no subscription, no wait queue.
 *
 * <p>It runs only in the scenarios that say {@link Scenario#withFloor()}, where no one else wants
 * the lock, so that the table can show what Padlock spends beyond the two scripts. It is not a
 * lock to use: waiting is a retry every millisecond, only the plain lock exists
 * ({@link UnsupportedOperationException} for the other kinds, a multi lock of any size and a
 * semaphore), and the watchdog's lease ({@value #WATCHDOG_LEASE_MILLIS} ms) is set once and never
 * renewed.
 *
 * <p>Scripts: each client loads both with {@code SCRIPT LOAD} when it connects and runs them
 * with {@code EVALSHA}; on {@code NOSCRIPT} (a server restarted or flushed) it runs that call
 * with {@code EVAL}, which caches the script again. The owner field is
 * {@code <client uuid>:<thread id>}, as Redisson's.
 */
final class FloorLibrary implements LockLibrary {

    /** The name shown in the table. */
    static final String NAME = "floor";

    /** The lease of {@code lock()} and {@code tryLock()}: the 30 s a watchdog would renew. */
    static final long WATCHDOG_LEASE_MILLIS = 30_000;

    /** The prefix of a lock's channel, Redisson's: the channel is {@code <prefix>{<lock name>}}. */
    static final String CHANNEL_PREFIX = "redisson_lock__channel:";

    static final String ACQUIRE = resource("floor_acquire.lua");
    static final String RELEASE = resource("floor_release.lua");

    private static final long RETRY_MILLIS = 1;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Client connect(RedisTarget target) {
        if (target.topology() == Topology.SINGLE) {
            RedisClient client = RedisClient.create(target.uri());
            try {
                StatefulRedisConnection<String, String> connection = client.connect();
                return new FloorClient(client, connection, connection.sync());
            } catch (RuntimeException e) {
                client.shutdown();
                throw e;
            }
        }
        List<RedisURI> seeds = target.uris().stream().map(RedisURI::create).collect(Collectors.toList());
        RedisClusterClient client = RedisClusterClient.create(seeds);
        try {
            StatefulRedisClusterConnection<String, String> connection = client.connect();
            return new FloorClient(client, connection, connection.sync());
        } catch (RuntimeException e) {
            client.shutdown();
            throw e;
        }
    }

    /** The channel on which the release of lock {@code name} publishes. */
    static String channel(String name) {
        return CHANNEL_PREFIX + "{" + name + "}";
    }

    private static String resource(String name) {
        try (InputStream in = FloorLibrary.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("No resource " + name + " next to " + FloorLibrary.class.getName());
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + name, e);
        }
    }

    /** One connection and the two scripts' digests. Thread-safe: Lettuce's commands are. */
    private static final class FloorClient implements Client {

        private final AbstractRedisClient client;
        private final StatefulConnection<String, String> connection;
        private final RedisClusterCommands<String, String> commands;
        private final String id = UUID.randomUUID().toString();
        private final String acquireSha;
        private final String releaseSha;

        FloorClient(AbstractRedisClient client, StatefulConnection<String, String> connection,
                RedisClusterCommands<String, String> commands) {
            this.client = client;
            this.connection = connection;
            this.commands = commands;
            this.acquireSha = commands.scriptLoad(ACQUIRE);
            this.releaseSha = commands.scriptLoad(RELEASE);
        }

        @Override
        public BenchLock lock(LockKind kind, List<String> names) {
            if (kind != LockKind.LOCK) {
                throw new UnsupportedOperationException("The floor has only the plain lock, not " + kind);
            }
            if (names.size() != 1) {
                throw new IllegalArgumentException(kind + " needs 1 name, got " + names);
            }
            return new FloorLock(this, names.get(0));
        }

        @Override
        public BenchLock multiLock(List<String> names) {
            throw new UnsupportedOperationException("The floor has only the plain lock, no multi lock");
        }

        @Override
        public BenchSemaphore semaphore(String name) {
            throw new UnsupportedOperationException("The floor has only the plain lock, no semaphore");
        }

        /** Runs a script by digest, by source on {@code NOSCRIPT}; its integer reply, null for nil. */
        Long run(String sha, String source, String[] keys, String... args) {
            try {
                return commands.evalsha(sha, ScriptOutputType.INTEGER, keys, args);
            } catch (RedisNoScriptException e) {
                return commands.eval(source, ScriptOutputType.INTEGER, keys, args);
            }
        }

        /** The calling thread's owner field. */
        String field() {
            return id + ":" + Thread.currentThread().getId();
        }

        @Override
        public void close() {
            try {
                connection.close();
            } finally {
                client.shutdown(0, 5, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * One plain lock. {@code leaseMillis} is the lease of the latest acquisition, which a release
     * of a re-entered hold re-arms (Redisson keeps its {@code internalLockLeaseTime} so too):
     * written by the acquiring thread, volatile.
     */
    private static final class FloorLock implements BenchLock {

        private final FloorClient client;
        private final String name;
        private final String[] acquireKeys;
        private final String[] releaseKeys;
        private volatile long leaseMillis = WATCHDOG_LEASE_MILLIS;

        FloorLock(FloorClient client, String name) {
            this.client = client;
            this.name = Objects.requireNonNull(name, "name");
            this.acquireKeys = new String[] {name};
            this.releaseKeys = new String[] {name, channel(name)};
        }

        @Override
        public void lock(long leaseMillis) {
            boolean interrupted = false;
            while (!attempt(leaseMillis)) {
                try {
                    Thread.sleep(RETRY_MILLIS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void lockWithWatchdog() {
            lock(WATCHDOG_LEASE_MILLIS);
        }

        @Override
        public boolean tryLock() {
            return attempt(WATCHDOG_LEASE_MILLIS);
        }

        @Override
        public boolean tryLock(long waitMillis, long leaseMillis) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, waitMillis));
            while (!attempt(leaseMillis)) {
                if (deadline - System.nanoTime() <= 0) {
                    return false;
                }
                Thread.sleep(RETRY_MILLIS);
            }
            return true;
        }

        @Override
        public void unlock() {
            Long released = client.run(client.releaseSha, RELEASE, releaseKeys, Long.toString(leaseMillis),
                    client.field());
            if (released == null) {
                throw new IllegalMonitorStateException("Lock " + name + " is not held by " + client.field());
            }
        }

        /** One run of the acquire script: whether it acquired (the script returns nil then). */
        private boolean attempt(long leaseMillis) {
            Long pttl = client.run(client.acquireSha, ACQUIRE, acquireKeys, Long.toString(leaseMillis),
                    client.field());
            if (pttl != null) {
                return false;
            }
            this.leaseMillis = leaseMillis;
            return true;
        }
    }
}
