package dev.padlock.internal.lock;

import dev.padlock.internal.acquire.Abandonments;
import dev.padlock.internal.acquire.AcquireContext;
import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.grant.GrantWaits;
import dev.padlock.internal.observe.Observing;
import dev.padlock.internal.protocol.AcknowledgedLockProtocol;
import dev.padlock.internal.protocol.LockProtocol;
import dev.padlock.internal.protocol.OwnerFields;
import dev.padlock.internal.queue.LocalQueues;
import dev.padlock.internal.redis.RedisBackend;
import dev.padlock.internal.renewal.Watchdog;
import dev.padlock.internal.script.ScriptRunner;
import dev.padlock.internal.wakeup.WakeUps;
import io.netty.util.Timer;
import org.jspecify.annotations.Nullable;

/**
 * What every lock object of one client shares: who the client is (and its owner fields), its connections, its wake-up
 * and renewal machinery, its local queues, the give-backs of claims whose reply was lost, its
 * timer (one per client: the watchdog's rounds, local waits' timeouts, lease checks, give-back
 * retries), its replica acknowledgement setting (with it, {@code scripts} is
 * {@link ScriptRunner#pinned()}), its observer (null when none is set), and its acquisitions that
 * wait in a line on Redis for a grant.
 */
public record LockServices(
        String clientId,
        OwnerFields ownerFields,
        RedisBackend backend,
        ScriptRunner scripts,
        WakeUps wakeUps,
        Watchdog watchdog,
        LocalQueues queues,
        Abandonments abandonments,
        Timer timer,
        EngineClock clock,
        long commandTimeoutMillis,
        int acknowledgingReplicas,
        long acknowledgementTimeoutMillis,
        @Nullable Observing observing,
        GrantWaits grantWaits) implements AcquireContext {

    /** The shortest look interval, whatever the command timeout. */
    public static final long MIN_LOOK_MILLIS = 1_000;

    /**
     * How often, at most, a waiter with a place in a line on Redis looks at the lock again (and so
     * keeps its place and the line alive): two command timeouts, at least a second. A grant does
     * not depend on it: it writes the lease the place asks for.
     */
    @Override
    public long lookMillis() {
        return Math.max(2 * commandTimeoutMillis, MIN_LOOK_MILLIS);
    }

    /**
     * Whether a PUBLISH's count tells who heard a grant: not on a 6.2 Cluster, where a classic
     * PUBLISH counts only its own node's listeners (the scripts' "counts listeners" argument).
     */
    @Override
    public boolean publishCountsListeners() {
        return !backend.isCluster() || backend.isSharded();
    }

    /**
     * Whether a grant message alone may tell its owner that it holds: PUBLISH counts who heard it
     * and no replica acknowledgement is asked for (a message is not acknowledged).
     */
    @Override
    public boolean grantMessagesConfirm() {
        return publishCountsListeners() && acknowledgingReplicas == 0;
    }

    public String address() {
        return backend.address();
    }

    /** {@code kind}, made to wait for replica acknowledgements when the client asks for them. */
    public LockProtocol withAcknowledgements(LockProtocol kind) {
        return acknowledgingReplicas == 0 ? kind
                : new AcknowledgedLockProtocol(kind, scripts, acknowledgingReplicas, acknowledgementTimeoutMillis);
    }
}
