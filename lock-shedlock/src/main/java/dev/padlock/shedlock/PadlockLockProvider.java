package dev.padlock.shedlock;

import static java.util.Objects.requireNonNull;

import dev.padlock.LockClient;
import dev.padlock.RedisUnavailableException;
import dev.padlock.spi.OutageLog;
import dev.padlock.spi.RedisAccess;
import dev.padlock.spi.Script;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A ShedLock {@link ExtensibleLockProvider} on a Padlock {@link LockClient}, with ShedLock's
 * semantics (not {@code RLock}'s): the lock of job {@code name} is the Redis string key
 * {@code <keyPrefix><name>}, present exactly while the job's lock is held, {@code lockAtLeastFor}
 * included, and gone otherwise.
 *
 * <ul>
 *   <li>{@link #lock} sets the key if it is absent ({@code SET NX PX}), with {@code lockAtMostFor}
 *       as its lease, and answers empty when it exists: no waiting, and not re-entrant (a second
 *       {@code lock} of a held job is refused, whoever asks).</li>
 *   <li>{@link SimpleLock#unlock()} deletes the key, or, while {@code lockAtLeastFor} has not run
 *       out, cuts its lease to what is left of it; a hold that already expired changes nothing.</li>
 *   <li>{@link SimpleLock#extend} moves a live hold to a new lease and a new handle (a new token on
 *       Redis); the old handle is dead from then on. A hold that expired cannot be extended.</li>
 * </ul>
 *
 * <p>Each hold has its own token ({@code <clientId>:<sequence>}), checked by every script, so one
 * hold never unlocks or extends another. Each call is one script round trip; it works on one
 * server, Sentinel and Cluster (one key a call). Thread-safe. Leases follow ShedLock's
 * {@link ClockProvider} on this JVM, so clocks of different hosts do not matter beyond the lease
 * they give. While Redis does not answer (within twice the client's command timeout),
 * {@code lock} answers empty, so the job is skipped, and logs one WARN per outage and job (the
 * stack at DEBUG) and one INFO when the job's lock works again, instead of a scheduler's stack
 * trace every run; {@code unlock} and {@code extend} throw {@link RedisUnavailableException} (a hold
 * that cannot be released expires with {@code lockAtMostFor}).
 */
public final class PadlockLockProvider implements ExtensibleLockProvider {
    private static final Logger log = LoggerFactory.getLogger(PadlockLockProvider.class);
    private final OutageLog outages;

    /** The key prefix when none is given. */
    public static final String DEFAULT_KEY_PREFIX = "shedlock:";

    private static final Script LOCK = Script.load(PadlockLockProvider.class, "shedlock_lock.lua");
    private static final Script UNLOCK = Script.load(PadlockLockProvider.class, "shedlock_unlock.lua");
    private static final Script EXTEND = Script.load(PadlockLockProvider.class, "shedlock_extend.lua");

    private final RedisAccess redis;
    private final String clientId;
    private final String keyPrefix;
    private final long timeoutMillis;
    private final AtomicLong sequence = new AtomicLong();

    /** A provider with keys {@code shedlock:<name>}. */
    public PadlockLockProvider(LockClient client) {
        this(client, DEFAULT_KEY_PREFIX);
    }

    /**
     * @param client a client from {@link LockClient#connect} or {@link LockClient#create}; the
     *     provider does not close it
     * @param keyPrefix put before each job's name to make its key; may be empty
     */
    public PadlockLockProvider(LockClient client, String keyPrefix) {
        requireNonNull(client, "client");
        requireNonNull(keyPrefix, "keyPrefix");
        this.redis = RedisAccess.of(client);
        this.outages = new OutageLog(log, client); // outages timed on the client's clock
        this.clientId = client.getId();
        this.keyPrefix = keyPrefix;
        this.timeoutMillis = 2 * redis.commandTimeout().toMillis();
    }

    /** The Redis key of job {@code name}'s lock. */
    public String key(String name) {
        return keyPrefix + name;
    }

    @Override
    public Optional<SimpleLock> lock(LockConfiguration configuration) {
        requireNonNull(configuration, "configuration");
        String key = key(configuration.getName());
        String token = newToken();
        long lease = millisUntil(configuration.getLockAtMostUntil());
        boolean locked;
        try {
            locked = run(LOCK, key, token, Long.toString(lease)) == 1;
        } catch (RedisUnavailableException unreachable) {
            // the job is skipped: no hold can be confirmed; a SET that landed unseen expires with lockAtMostFor
            outages.failed(configuration.getName(), "ShedLock lock", unreachable);
            return Optional.empty();
        }
        outages.succeeded(configuration.getName(), "ShedLock lock");
        return locked ? Optional.of(new Hold(configuration, key, token)) : Optional.empty();
    }

    @Override
    public String toString() {
        return "PadlockLockProvider[" + keyPrefix + "*]";
    }

    private String newToken() {
        return clientId + ":" + sequence.incrementAndGet();
    }

    /** Milliseconds from now (ShedLock's clock) to {@code until}; at least 1 for a lease. */
    private static long millisUntil(Instant until) {
        return Math.max(1, Duration.between(ClockProvider.now(), until).toMillis());
    }

    private long run(Script script, String key, String... args) {
        try {
            Long reply = redis.<Long>run(script, ScriptOutputType.INTEGER,
                    new String[] {key}, args).get(timeoutMillis, TimeUnit.MILLISECONDS);
            return reply == null ? 0 : reply;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RedisUnavailableException(script + " on '" + key + "' was interrupted", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new RedisUnavailableException(script + " on '" + key + "' failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new RedisUnavailableException(script + " on '" + key + "' at " + redis.address()
                    + " got no answer within twice the command timeout", e);
        }
    }

    /** One hold of a job's lock; ShedLock's base class makes it single-use (unlock or extend once). */
    private final class Hold extends AbstractSimpleLock {
        private final String key;
        private final String token;

        Hold(LockConfiguration configuration, String key, String token) {
            super(configuration);
            this.key = key;
            this.token = token;
        }

        @Override
        protected void doUnlock() {
            // whole milliseconds of lockAtLeastFor left; less than one deletes (SET PX takes no less)
            long keep = Math.max(0, Duration.between(ClockProvider.now(), lockConfiguration.getLockAtLeastUntil())
                    .toMillis());
            if (run(UNLOCK, key, token, Long.toString(keep)) == 0) {
                log.warn("ShedLock lock '{}' had already expired or been taken when it was unlocked: "
                        + "lockAtMostFor ({}) was shorter than the job", lockConfiguration.getName(),
                        lockConfiguration.getLockAtMostFor());
            }
        }

        @Override
        protected Optional<SimpleLock> doExtend(LockConfiguration extended) {
            String next = newToken();
            long lease = millisUntil(extended.getLockAtMostUntil());
            boolean moved = run(EXTEND, key, token, next, Long.toString(lease)) == 1;
            return moved ? Optional.of(new Hold(extended, key, next)) : Optional.empty();
        }

        @Override
        public String toString() {
            return "PadlockLockProvider.Hold[" + key + "]";
        }
    }
}
