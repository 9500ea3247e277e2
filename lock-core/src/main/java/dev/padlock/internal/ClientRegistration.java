package dev.padlock.internal;

import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.redis.RedisBackend;
import dev.padlock.internal.script.LuaScript;
import dev.padlock.internal.script.ScriptRunner;
import dev.padlock.spi.LockKeys;
import dev.padlock.spi.PadlockInfo;
import io.lettuce.core.ScriptOutputType;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.io.IOException;
import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client's entry in the client registry: who it is, under {@code padlock_client:<clientId>},
 * so that an operator (the {@code padlock} command) can say which application, host and process
 * an owner field {@code <clientId>:<threadId>} belongs to.
 *
 * <p>Implementation notes. The entry is a hash ({@link #fields()}) with a TTL of
 * {@value #TTL_MILLIS} ms, written at start and again every {@value #REFRESH_MILLIS} ms on the
 * client's timer, so a client that dies without closing leaves it for at most a minute, and one
 * whose entry was lost (a restart, a failover, a {@code FLUSHALL}) is back within a refresh.
 * A write is one script call ({@code client_register.lua}: an {@code HSET} of every field and a
 * {@code PEXPIRE}, so the entry never exists without its expiry): one round trip, three commands
 * with the {@code EVAL}, and never on a lock operation's path. A failed write
 * (Redis down, or an ACL without {@code padlock_client:*}) is logged and tried again at the next
 * refresh; it never fails the client. {@link #close()} deletes the entry.
 *
 * <p>Thread-safety: {@link #start()} and {@link #close()} are called once each by the client;
 * the refresh runs on the timer thread; {@link #next} is volatile.
 */
final class ClientRegistration implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ClientRegistration.class);

    /** How long an entry lives without a refresh. */
    static final long TTL_MILLIS = 60_000;
    /** How often a live client writes its entry again: a third of its TTL. */
    static final long REFRESH_MILLIS = TTL_MILLIS / 3;
    /** The longest {@link #close()} waits for its DEL: a close must not hang on a Redis that is gone. */
    static final long CLOSE_WAIT_MILLIS = 500;

    private final RedisBackend backend;
    private final ScriptRunner scripts;
    private final Timer timer;
    private final String key;
    private final Map<String, String> fields;
    private final long commandTimeoutMillis;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Whether the last write failed: a failure is logged at WARN once, until a write succeeds. */
    private final AtomicBoolean failing = new AtomicBoolean();
    /** The next refresh; replaced by the timer thread, cancelled by {@link #close()}. */
    private volatile @Nullable Timeout next;
    /** Completes when the first write has been answered, whether it succeeded or failed. */
    private final CompletableFuture<Void> firstWrite = new CompletableFuture<>();

    private ClientRegistration(RedisBackend backend, ScriptRunner scripts, Timer timer, String key,
            Map<String, String> fields, long commandTimeoutMillis) {
        this.backend = backend;
        this.scripts = scripts;
        this.timer = timer;
        this.key = key;
        this.fields = Map.copyOf(fields);
        this.commandTimeoutMillis = commandTimeoutMillis;
    }

    /**
     * The registration of client {@code clientId}, not yet written.
     *
     * @param applicationName the name the entry gives, see {@link #defaultApplicationName()}
     * @param watchdogMillis the client's watchdog timeout, which tells a watchdog lease from a fixed one
     */
    static ClientRegistration of(RedisBackend backend, ScriptRunner scripts, Timer timer, EngineClock clock,
            String clientId, String applicationName,
            long watchdogMillis, long commandTimeoutMillis) {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("id", clientId);
        fields.put("application", applicationName);
        fields.put("host", hostName());
        fields.put("pid", Long.toString(ProcessHandle.current().pid()));
        fields.put("version", PadlockInfo.version());
        fields.put("started", Long.toString(clock.currentTimeMillis()));
        fields.put("watchdogMillis", Long.toString(watchdogMillis));
        fields.put("java", System.getProperty("java.version", "?"));
        return new ClientRegistration(backend, scripts, timer, LockKeys.client(clientId), fields, commandTimeoutMillis);
    }

    /** The entry's fields: id, application, host, pid, version, started (epoch ms), watchdogMillis, java. */
    Map<String, String> fields() {
        return fields;
    }

    /** Writes the entry now (without waiting for it) and every {@value #REFRESH_MILLIS} ms. */
    void start() {
        refresh();
    }

    private void refresh() {
        if (closed.get()) {
            return;
        }
        write().whenComplete((ok, failure) -> {
            firstWrite.complete(null);
            if (failure == null) {
                if (failing.compareAndSet(true, false)) {
                    log.info("client registry entry {} written again", key);
                }
            } else if (failing.compareAndSet(false, true)) {
                log.warn("could not write the client registry entry {} (the padlock command will show this "
                        + "client's locks as held by an unknown client); trying again every {} ms: {}", key,
                        REFRESH_MILLIS, failure.getMessage());
            }
        });
        try {
            next = timer.newTimeout(timeout -> refresh(), REFRESH_MILLIS, TimeUnit.MILLISECONDS);
        } catch (IllegalStateException stopped) {
            // the timer stopped: the client is closing
        }
    }

    /**
     * Completes (never exceptionally) once Redis has answered the first write, or it could not be
     * sent: for callers that count the commands a server ran and must not count this one.
     */
    CompletableFuture<Void> firstWrite() {
        return firstWrite.copy();
    }

    /** Whether a refresh is scheduled on the timer now (0 or 1): the client leaves it out of its task count. */
    int scheduledRefreshes() {
        Timeout pending = next;
        return pending != null && !pending.isExpired() && !pending.isCancelled() ? 1 : 0;
    }

    /**
     * HSET and PEXPIRE in one script call ({@code client_register.lua}), so the entry never exists
     * without its expiry; through the client's script runner, as every script.
     */
    private CompletableFuture<Void> write() {
        String[] args = new String[1 + 2 * fields.size()];
        args[0] = Long.toString(TTL_MILLIS);
        int i = 1;
        for (Map.Entry<String, String> field : fields.entrySet()) {
            args[i++] = field.getKey();
            args[i++] = field.getValue();
        }
        return scripts.<Long>run(LuaScript.CLIENT_REGISTER, ScriptOutputType.INTEGER, new String[] {key}, args)
                .thenApply(ok -> (Void) null);
    }

    /**
     * Stops the refreshes and deletes the entry, waiting for the DEL at most the command timeout
     * or {@value #CLOSE_WAIT_MILLIS} ms, whichever is shorter; an entry not deleted expires.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        firstWrite.complete(null);
        Timeout pending = next;
        if (pending != null) {
            pending.cancel();
        }
        try {
            backend.commands().del(key).toCompletableFuture()
                    .get(Math.min(commandTimeoutMillis, CLOSE_WAIT_MILLIS), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.debug("could not delete the client registry entry {}; it expires within {} ms", key, TTL_MILLIS, e);
        }
    }

    /**
     * The application name when {@code LockConfig} gives none: the system property
     * {@code padlock.application.name}, else {@code spring.application.name}, else the simple name
     * of the JVM's main class (or the jar it runs), else {@code java}.
     */
    static String defaultApplicationName() {
        for (String property : new String[] {"padlock.application.name", "spring.application.name"}) {
            String value = System.getProperty(property);
            if (value != null && !value.isBlank()) {
                return value.strip();
            }
        }
        String command = System.getProperty("sun.java.command", "").strip();
        if (command.isEmpty()) {
            return "java";
        }
        String main = command.split("\\s+", 2)[0];
        if (main.endsWith(".jar")) {
            return main.substring(Math.max(main.lastIndexOf('/'), main.lastIndexOf('\\')) + 1);
        }
        return main.substring(main.lastIndexOf('.') + 1);
    }

    private static String hostName() {
        String env = System.getenv("HOSTNAME");
        if (env != null && !env.isBlank()) {
            return env.strip();
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "unknown";
        }
    }
}
