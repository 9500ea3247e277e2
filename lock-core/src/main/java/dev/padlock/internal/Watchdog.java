package dev.padlock.internal;

import dev.padlock.LeaseLostListener;
import io.lettuce.core.ScriptOutputType;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews the leases of locks held without an explicit lease, until their last unlock.
 *
 * <h2>Implementation notes</h2>
 * One Netty {@link HashedWheelTimer} per client runs one renewal round every third of the
 * watchdog timeout. A round sends each kind's renewal script ({@link LockProtocol#renewScript()})
 * for every lock this client holds with a watchdog lease, up to {@value #BATCH} locks a call
 * (grouped by script, and by Cluster slot on a Cluster). There is one {@link Renewal} per lock
 * ({@link LockProtocol#localKey()}); it counts the holds of each owner thread
 * of this client and goes {@code ACTIVE -> CANCELLED} at the last unlock (or a force unlock, or
 * close) and {@code ACTIVE -> LOST} when the script says the lock is no longer ours; then the
 * loss is logged at WARN and the {@link LeaseLostListener} is told, off the lock owner's thread.
 *
 * <p>A renewal must never outlive the unlock: a renewal sent after the release script could
 * re-arm a lock taken again meanwhile. Commands on one connection run in the order they are
 * sent, so a round sends its batch while holding {@link #dispatchLock}, and a final unlock
 * cancels its entry under that same lock before its release is sent: either the renewal is on
 * the wire before the release, or the round sees the entry cancelled.
 */
final class Watchdog implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Watchdog.class);
    static final int BATCH = 100;

    private final ScriptRunner scripts;
    private final boolean cluster;
    private final long leaseMillis;
    private final LeaseLostListener listener;
    private final Executor listenerExecutor;
    private final BiConsumer<String, Long> lossHook;
    private final Timer timer;
    private final ConcurrentHashMap<String, Renewal> renewals = new ConcurrentHashMap<>();
    /** Orders renewal sends before the release of a final unlock; see the class notes. */
    private final ReentrantLock dispatchLock = new ReentrantLock();
    private volatile boolean closed;

    /**
     * @param lossHook told first, on the I/O thread, of every lost lease by the lock's
     *     {@link LockProtocol#localKey()} (the local queues use it)
     */
    Watchdog(ScriptRunner scripts, boolean cluster, long leaseMillis,
            LeaseLostListener listener, Executor listenerExecutor, BiConsumer<String, Long> lossHook) {
        this.scripts = scripts;
        this.cluster = cluster;
        this.leaseMillis = leaseMillis;
        this.listener = listener;
        this.listenerExecutor = listenerExecutor;
        this.lossHook = lossHook;
        long period = periodMillis();
        long tick = Math.max(1, Math.min(100, period / 10));
        this.timer = new HashedWheelTimer(new DefaultThreadFactory("padlock-watchdog", true),
                tick, TimeUnit.MILLISECONDS, 512);
        timer.newTimeout(this::round, period, TimeUnit.MILLISECONDS);
    }

    /** The lease a watchdog acquisition sets, and renewals set again. */
    long leaseMillis() {
        return leaseMillis;
    }

    long periodMillis() {
        return Math.max(1, leaseMillis / 3);
    }

    /**
     * Records an acquisition by {@code threadId}. A watchdog lease starts or joins the lock's
     * renewal; a fixed-lease re-entry of a renewed lock is counted too, so that the renewal ends
     * at the last unlock.
     */
    void onAcquired(LockProtocol protocol, long threadId, boolean watchdogLease) {
        renewals.compute(protocol.localKey(), (key, existing) -> {
            if (existing != null && existing.tryHold(threadId, watchdogLease)) {
                return existing;
            }
            if (!watchdogLease || closed) {
                return null;
            }
            Renewal renewal = new Renewal(protocol);
            renewal.tryHold(threadId, true);
            return renewal;
        });
    }

    /**
     * Drops one local hold of {@code threadId} before its release is sent; at the last hold of
     * the lock the renewal is cancelled first.
     *
     * @return whether the hold was renewed by the watchdog (an inner release then re-arms the
     *     watchdog lease)
     */
    boolean beforeRelease(LockProtocol protocol, long threadId) {
        String key = protocol.localKey();
        Renewal renewal = renewals.get(key);
        if (renewal == null) {
            return false;
        }
        dispatchLock.lock();
        try {
            Renewal.Unhold unhold = renewal.unhold(threadId);
            if (unhold == Renewal.Unhold.LAST) {
                renewals.remove(key, renewal);
            }
            return unhold != Renewal.Unhold.NOT_HELD;
        } finally {
            dispatchLock.unlock();
        }
    }

    /** Forgets {@code threadId}'s holds after Redis said it holds the lock no more. */
    void forget(LockProtocol protocol, long threadId) {
        String key = protocol.localKey();
        Renewal renewal = renewals.get(key);
        if (renewal != null) {
            dispatchLock.lock();
            try {
                if (renewal.forget(threadId)) {
                    renewals.remove(key, renewal);
                }
            } finally {
                dispatchLock.unlock();
            }
        }
    }

    /** Cancels the lock's renewal for every thread: a force unlock is coming. */
    void cancel(LockProtocol protocol) {
        String key = protocol.localKey();
        Renewal renewal = renewals.get(key);
        if (renewal != null) {
            dispatchLock.lock();
            try {
                renewal.cancel();
                renewals.remove(key, renewal);
            } finally {
                dispatchLock.unlock();
            }
        }
    }

    /** Locks being renewed now; for tests and metrics. */
    int activeRenewals() {
        return renewals.size();
    }

    private void round(Timeout timeout) {
        if (closed) {
            return;
        }
        try {
            renewAll();
        } catch (Throwable t) {
            log.error("watchdog round failed; trying again next period", t);
        } finally {
            if (!closed) {
                timer.newTimeout(this::round, periodMillis(), TimeUnit.MILLISECONDS);
            }
        }
    }

    private void renewAll() {
        if (renewals.isEmpty()) {
            return;
        }
        dispatchLock.lock();
        try {
            Map<Group, List<Renewal>> batches = new HashMap<>();
            for (Renewal renewal : renewals.values()) {
                long owner = renewal.anyOwner();
                if (owner == Renewal.NO_OWNER) {
                    continue;
                }
                Group group = new Group(cluster ? RedisBackend.slot(renewal.protocol.name()) : 0,
                        renewal.protocol.renewScript());
                List<Renewal> batch = batches.computeIfAbsent(group, g -> new ArrayList<>());
                batch.add(renewal);
                if (batch.size() == BATCH) {
                    send(batch);
                    batches.remove(group);
                }
            }
            batches.values().forEach(this::send);
        } finally {
            dispatchLock.unlock();
        }
    }

    /** Renewals sent in one call: one script, one Cluster slot. */
    private record Group(int slot, LuaScript script) {
    }

    /** Sends one renewal call; runs under {@link #dispatchLock}. */
    private void send(List<Renewal> batch) {
        List<String> keys = new ArrayList<>(batch.size());
        String[] args = new String[batch.size() + 1];
        long[] owners = new long[batch.size()];
        args[0] = Long.toString(leaseMillis);
        for (int i = 0; i < batch.size(); i++) {
            Renewal renewal = batch.get(i);
            owners[i] = renewal.anyOwner();
            keys.addAll(List.of(renewal.protocol.renewKeys(owners[i])));
            args[i + 1] = renewal.protocol.ownerField(owners[i]);
        }
        String first = batch.get(0).protocol.name();
        // in order: the class notes' guarantee (a renewal never lands after a final unlock) needs it
        scripts.<List<Object>>runInOrder(batch.get(0).protocol.renewScript(), ScriptOutputType.MULTI,
                        keys.toArray(String[]::new), args)
                .whenComplete((renewed, failure) -> {
                    if (failure != null) {
                        log.warn("could not renew {} lock lease(s) ({}...): {}; trying again in {} ms",
                                batch.size(), first, failure.getMessage(), periodMillis());
                        return;
                    }
                    for (int i = 0; i < batch.size(); i++) {
                        if (Long.valueOf(0L).equals(renewed.get(i))) {
                            lost(batch.get(i), owners[i]);
                        }
                    }
                });
    }

    private void lost(Renewal renewal, long owner) {
        List<Long> owners = renewal.markLost();
        if (owners.isEmpty()) {
            return; // cancelled meanwhile
        }
        renewals.remove(renewal.protocol.localKey(), renewal);
        for (long threadId : owners) {
            lossHook.accept(renewal.protocol.localKey(), threadId);
            log.warn("lease of lock '{}' held by {} was lost: the lock expired, was deleted or was taken "
                    + "before the watchdog could renew it", renewal.protocol.name(), renewal.protocol.ownerField(threadId));
            if (listener != null) {
                listenerExecutor.execute(() -> {
                    try {
                        listener.onLeaseLost(renewal.protocol.name(), threadId);
                    } catch (Throwable t) {
                        log.error("lease-lost listener failed for lock '{}'", renewal.protocol.name(), t);
                    }
                });
            }
        }
    }

    /** Stops renewing; held locks then expire with their leases. */
    @Override
    public void close() {
        closed = true;
        dispatchLock.lock();
        try {
            for (Renewal renewal : renewals.values()) {
                renewal.cancel();
            }
            renewals.clear();
        } finally {
            dispatchLock.unlock();
        }
        timer.stop();
    }

    /**
     * The renewal of one lock name for this client. Its methods change state under its monitor
     * and never touch the map: the watchdog removes entries outside the monitor, so that a map
     * {@code compute} holding a bin lock can take the monitor without a lock-order inversion.
     */
    private static final class Renewal {
        static final long NO_OWNER = Long.MIN_VALUE;

        enum State { ACTIVE, CANCELLED, LOST }

        enum Unhold { NOT_HELD, INNER, LAST }

        final LockProtocol protocol;
        final AtomicReference<State> state = new AtomicReference<>(State.ACTIVE);
        /** Owner thread -> local hold count; guarded by this. */
        private final Map<Long, Integer> holds = new LinkedHashMap<>();

        Renewal(LockProtocol protocol) {
            this.protocol = protocol;
        }

        /**
         * Counts a hold: always for a watchdog lease, for a fixed lease only when the thread
         * already holds a renewed one. False when this entry is no longer active.
         */
        synchronized boolean tryHold(long threadId, boolean watchdogLease) {
            if (state.get() != State.ACTIVE) {
                return false;
            }
            Integer count = holds.get(threadId);
            if (count != null) {
                holds.put(threadId, count + 1);
            } else if (watchdogLease) {
                holds.put(threadId, 1);
            }
            return true;
        }

        /** Drops one hold; the last hold of the last thread cancels the entry. */
        synchronized Unhold unhold(long threadId) {
            Integer count = holds.get(threadId);
            if (count == null || state.get() != State.ACTIVE) {
                return Unhold.NOT_HELD;
            }
            if (count > 1) {
                holds.put(threadId, count - 1);
                return Unhold.INNER;
            }
            holds.remove(threadId);
            if (holds.isEmpty()) {
                state.compareAndSet(State.ACTIVE, State.CANCELLED);
                return Unhold.LAST;
            }
            return Unhold.INNER;
        }

        /** Drops every hold of the thread; true when that cancelled the entry. */
        synchronized boolean forget(long threadId) {
            return holds.remove(threadId) != null && holds.isEmpty()
                    && state.compareAndSet(State.ACTIVE, State.CANCELLED);
        }

        synchronized long anyOwner() {
            if (state.get() != State.ACTIVE || holds.isEmpty()) {
                return NO_OWNER;
            }
            return holds.keySet().iterator().next();
        }

        synchronized void cancel() {
            state.compareAndSet(State.ACTIVE, State.CANCELLED);
        }

        /** The owners that lost their lease, or none when the entry was no longer active. */
        synchronized List<Long> markLost() {
            if (!state.compareAndSet(State.ACTIVE, State.LOST)) {
                return List.of();
            }
            return new ArrayList<>(holds.keySet());
        }
    }
}
