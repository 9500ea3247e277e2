package dev.padlock.internal.renewal;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.padlock.LeaseLostListener;
import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.lease.LeaseClocks;
import dev.padlock.internal.lease.LeaseMillis;
import dev.padlock.internal.protocol.LockProtocol;
import dev.padlock.internal.redis.RedisBackend;
import dev.padlock.internal.renewal.Renewal.State;
import dev.padlock.internal.script.LuaScript;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews the leases of owners that hold a lock without an explicit lease, until they stop holding.
 *
 * <h2>Implementation notes</h2>
 * The watchdog renews <em>owners</em>, not locks: one {@link Renewal} per owner ({@code
 * <clientId>:<threadId>}) and lock ({@link LockProtocol#localKey()}), so every reader of a read
 * lock is renewed, and an owner found lost takes no other owner's renewal with it. It keeps no
 * hold counts: Redis says when an owner stops holding. A release marks the owner's renewal as
 * releasing (rounds skip it), and the release's reply decides: holds remain, the renewal goes on;
 * released, not held or unknown (a failure), it ends. An entry therefore never outlives its owner's
 * hold, and a renewal never re-arms a lock its owner tried to release.
 *
 * <p>One timer per client (Netty's {@link Timer}) runs a round every third of the watchdog
 * timeout. A round sends each kind's renewal script ({@link LockProtocol#renewScript()}) for every
 * active renewal, up to {@value #BATCH} owners a call (grouped by script, and by Cluster slot on a
 * Cluster). A renewal goes {@code ACTIVE <-> RELEASING -> ENDED | LOST}: {@code LOST} when the
 * script says the owner no longer holds, or when its last confirmed end passes with no renewal
 * answered (a stalled or unreachable Redis: {@link LossOnSilence}); the loss is logged at WARN and
 * the {@link LeaseLostListener} told, off the owner's thread.
 *
 * <p>Each renewal keeps its last confirmed end ({@link Renewal}): the send time of the last request
 * Redis confirmed set its TTL (acquisition, grant, hand-off, renewal, extension), plus that lease,
 * less the lease clocks' drift margin: past it another client may hold the lock.
 *
 * <p>A renewal must never land after the release of its owner's last hold: it could re-arm a lock
 * taken again meanwhile. Commands on one connection run in the order they are sent, so a round
 * sends its batch while holding {@link #dispatchLock}, and a release marks its renewal under that
 * same lock before it is sent: either the renewal is on the wire before the release, or the round
 * skips it.
 */
public final class Watchdog implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Watchdog.class);
    static final int BATCH = 100;

    /** Sends one renewal call: a script, its keys and its arguments, in order with earlier calls. */
    public interface Sender {
        CompletableFuture<List<Object>> renew(LuaScript script, String[] keys, String[] args);
    }

    /** Reads an owner's hold count: the value of {@code field} in the hash {@code name}, 0 when absent. */
    public interface HoldCounter {
        CompletableFuture<Long> holds(String name, String field);
    }

    private final HoldCounter holdCounter;
    private final boolean cluster;
    private final long leaseMillis;
    private final @Nullable LeaseLostListener listener;
    private final Executor listenerExecutor;
    private final BiConsumer<String, Long> lossHook;
    private final Timer timer;
    private final EngineClock clock;
    private final LossOnSilence silence;
    private final RenewalCalls calls;
    private final ConcurrentHashMap<Owner, Renewal> renewals = new ConcurrentHashMap<>();
    /** This client's leases, told what Redis confirms and what the watchdog finds lost. */
    private final LeaseClocks leaseClocks = new LeaseClocks();
    /**
     * When each owner was last told it lost a lock, on the engine's clock, for a lease's time: a
     * watchdog acquisition sent before that, whose reply came after, is not renewed (its owner may
     * hear of the loss after it heard "acquired", and take that hold as lost too).
     */
    private final Cache<Owner, Long> toldLostAt;
    /** Orders renewal sends before releases; see the class notes. */
    private final ReentrantLock dispatchLock = new ReentrantLock();
    private volatile boolean closed;
    private volatile Timeout nextRound;

    /**
     * @param timer the client's timer; the watchdog schedules its rounds on it and does not stop it
     * @param clock the client's clock, the one the engine reads send times from
     * @param lossHook told first, on the I/O thread, of every lost lease by the lock's
     *     {@link LockProtocol#localKey()} and owner (the local queues use it)
     */
    public Watchdog(Sender sender, HoldCounter holdCounter, boolean cluster, long leaseMillis, @Nullable LeaseLostListener listener,
            Executor listenerExecutor, BiConsumer<String, Long> lossHook, Timer timer, EngineClock clock) {
        this(sender, holdCounter, cluster, leaseMillis, listener, listenerExecutor, lossHook, timer, clock, null);
    }

    /** @param observing told how each renewal call came back; null when the client has no observer */
    public Watchdog(Sender sender, HoldCounter holdCounter, boolean cluster, long leaseMillis, @Nullable LeaseLostListener listener,
            Executor listenerExecutor, BiConsumer<String, Long> lossHook, Timer timer, EngineClock clock,
            @Nullable RenewalListener observing) {
        this.holdCounter = holdCounter;
        this.cluster = cluster;
        this.leaseMillis = leaseMillis;
        this.listener = listener;
        this.listenerExecutor = listenerExecutor;
        this.lossHook = lossHook;
        this.timer = timer;
        this.clock = clock;
        this.calls = new RenewalCalls(sender, clock, leaseMillis, observing, this::lost, leaseClocks);
        this.toldLostAt = Caffeine.newBuilder().ticker(clock::nanoTime)
                .expireAfterWrite(Duration.ofMillis(Math.max(1, leaseMillis))).maximumSize(10_000).build();
        this.silence = new LossOnSilence(timer, clock, leaseMillis,
                renewal -> told(renewal, "no renewal was answered before its last confirmed TTL ran out"));
        this.nextRound = timer.newTimeout(this::round, periodMillis(), TimeUnit.MILLISECONDS);
    }

    /** This client's leases (see {@link LeaseClocks}). */
    public LeaseClocks leaseClocks() {
        return leaseClocks;
    }

    /** The lease a watchdog acquisition sets, and renewals set again. */
    public long leaseMillis() {
        return leaseMillis;
    }

    long periodMillis() {
        return Math.max(1, leaseMillis / 3);
    }

    /**
     * Redis confirmed that {@code owner} holds the lock, by a request sent at {@code sentNanos}
     * that asked for {@code leaseMillis} (fixed, or {@link LeaseMillis#WATCHDOG}: a TTL of this
     * watchdog's {@link #leaseMillis()}). With a watchdog lease its renewal starts, or goes on
     * when it has one. A fixed-lease re-entry leaves a running renewal as it is, as Redisson does
     * (its lease is the renewal's confirmed end until a later renewal answers); but a fixed-lease
     * acquisition that was a first hold (the owner's earlier hold was lost behind its back, and its
     * renewal not yet told) must not inherit it: the owner's hold count is read, and a single hold
     * ends the renewal.
     */
    public void onAcquired(LockProtocol protocol, long owner, long leaseMillis, long sentNanos) {
        boolean watchdogLease = LeaseMillis.isWatchdog(leaseMillis);
        long ttlMillis = LeaseMillis.ttlMillis(leaseMillis, this.leaseMillis);
        leaseClocks.ttlSet(protocol, owner, sentNanos, ttlMillis);
        silence.acquired(protocol.localKey(), owner);
        if (closed || (!watchdogLease && renewals.isEmpty())) {
            return;
        }
        Owner key = new Owner(protocol.localKey(), owner);
        if (!watchdogLease) {
            Renewal existing = renewals.get(key);
            if (existing != null) {
                existing.acquiredAt(clock.nanoTime());
                if (existing.ttlSet(sentNanos, ttlMillis)) {
                    endsSooner(existing);
                }
                holdCounter.holds(protocol.name(), protocol.ownerField(owner)).whenComplete((holds, failure) -> {
                    if (failure == null && holds <= 1 && renewals.remove(key, existing)) {
                        existing.end();
                    }
                });
            }
            return;
        }
        Long lostAt = toldLostAt.getIfPresent(key);
        if (lostAt != null && sentNanos - lostAt < 0) {
            // sent before its owner was told it lost the lock, answered after: its owner may hear
            // of that loss after "acquired" and take this hold as lost too, so nothing renews it;
            // it is told lost once its TTL can have run out, unless released before
            silence.watchUnrenewed(key, new Renewal(protocol, owner, sentNanos, ttlMillis));
            return;
        }
        silence.endUnrenewed(key); // its field is renewed from now on
        Renewal[] sooner = new Renewal[1];
        long nowNanos = clock.nanoTime();
        renewals.compute(key, (k, existing) -> {
            if (existing != null && existing.state() != State.ENDED && existing.state() != State.LOST) {
                existing.acquiredAt(nowNanos);
                sooner[0] = existing.ttlSet(sentNanos, ttlMillis) ? existing : null;
                return existing;
            }
            sooner[0] = new Renewal(protocol, owner, sentNanos, ttlMillis);
            sooner[0].acquiredAt(nowNanos);
            return sooner[0];
        });
        if (sooner[0] != null) {
            endsSooner(sooner[0]);
        }
    }

    /**
     * {@code renewal} is new, or its confirmed end came sooner: it is checked for silence then, and
     * renewed at once when that end comes within two periods (a hold confirmed long after the send
     * of the attempt it answers: a grant, a wait), so that a healthy Redis answers before it.
     */
    private void endsSooner(Renewal renewal) {
        silence.watch(renewal);
        if (renewal.leftNanos(clock.nanoTime()) < TimeUnit.MILLISECONDS.toNanos(2 * periodMillis())) {
            dispatchLock.lock();
            try {
                if (!closed && renewal.state() == State.ACTIVE) {
                    calls.send(List.of(renewal));
                }
            } finally {
                dispatchLock.unlock();
            }
        }
    }

    /**
     * An extension sent at {@code sentNanos} set {@code owner}'s TTL to at least {@code ttlMillis},
     * Redis says: a renewed owner's confirmed end moves on.
     */
    public void onExtended(LockProtocol protocol, long owner, long ttlMillis, long sentNanos) {
        leaseClocks.ttlSet(protocol, owner, sentNanos, ttlMillis);
        Renewal renewal = renewals.isEmpty() ? null : renewals.get(new Owner(protocol.localKey(), owner));
        if (renewal != null) {
            renewal.ttlExtended(sentNanos, ttlMillis);
        }
    }

    /**
     * Whether {@code owner} was told that it lost this lock when its last confirmed TTL ran out
     * unanswered, and has not acquired it since: it does not hold it, and Redis is not asked.
     */
    public boolean toldLostOnSilence(LockProtocol protocol, long owner) {
        return silence.toldLost(protocol.localKey(), owner);
    }

    /**
     * {@code owner} got the lock by a hand-off sent at {@code sentNanos}, as a first hold: it starts
     * a renewal with a watchdog lease, and keeps none it may have had with a fixed one.
     */
    public void onHandedOver(LockProtocol protocol, long owner, long leaseMillis, long sentNanos) {
        if (LeaseMillis.isWatchdog(leaseMillis)) {
            onAcquired(protocol, owner, leaseMillis, sentNanos);
        } else {
            leaseClocks.ttlSet(protocol, owner, sentNanos, leaseMillis);
            silence.acquired(protocol.localKey(), owner);
            forget(protocol, owner);
        }
    }

    /** Whether {@code owner}'s lease of this lock is renewed now. */
    public boolean isRenewing(LockProtocol protocol, long owner) {
        return !renewals.isEmpty() && renewals.containsKey(new Owner(protocol.localKey(), owner));
    }

    /**
     * A release (or hand-off) of one hold of {@code owner} is about to be sent: its renewal pauses
     * until {@link #afterRelease}.
     *
     * @return whether the owner's lease is renewed (an inner release then re-arms the watchdog lease)
     */
    public boolean beforeRelease(LockProtocol protocol, long owner) {
        Renewal renewal = renewals.isEmpty() ? null : renewals.get(new Owner(protocol.localKey(), owner));
        if (renewal == null) {
            return false;
        }
        dispatchLock.lock();
        try {
            return renewal.beginRelease();
        } finally {
            dispatchLock.unlock();
        }
    }

    /**
     * The reply of a release announced by {@link #beforeRelease}: with {@code stillHeld} the renewal
     * goes on, its confirmed end back to what its own lease set (see {@link Renewal#releasedOne});
     * otherwise (released, not held, or a failure that leaves it unknown) it ends.
     */
    public void afterRelease(LockProtocol protocol, long owner, boolean stillHeld) {
        if (!stillHeld) {
            silence.endUnrenewed(new Owner(protocol.localKey(), owner));
        }
        if (renewals.isEmpty()) {
            return; // no key to build: the fixed-lease owner's common case
        }
        Owner key = new Owner(protocol.localKey(), owner);
        Renewal renewal = renewals.get(key);
        if (renewal != null && renewal.endRelease(stillHeld)) {
            renewals.remove(key, renewal);
        } else if (renewal != null && renewal.releasedOne()) {
            endsSooner(renewal);
        }
    }

    /** Whether {@code owner} was told it lost the lock at or after {@code sinceNanos} (within a lease's time). */
    public boolean toldLostSince(LockProtocol protocol, long owner, long sinceNanos) {
        Long lostAt = toldLostAt.getIfPresent(new Owner(protocol.localKey(), owner));
        return lostAt != null && lostAt - sinceNanos >= 0;
    }

    /**
     * Whether {@code owner} was told it lost the lock after a call sent at {@code sentNanos} (within
     * a lease's time): a hold that call made or found, told now, could be heard of before that
     * loss and be taken as lost with it.
     */
    public boolean toldLostAfter(LockProtocol protocol, long owner, long sentNanos) {
        Long lostAt = toldLostAt.getIfPresent(new Owner(protocol.localKey(), owner));
        return lostAt != null && sentNanos - lostAt < 0;
    }

    /** Ends the renewal of {@code owner}: Redis said it does not hold this lock, or its holds are taken as nothing. */
    public void forget(LockProtocol protocol, long owner) {
        silence.endUnrenewed(new Owner(protocol.localKey(), owner));
        if (renewals.isEmpty()) {
            return;
        }
        Owner key = new Owner(protocol.localKey(), owner);
        Renewal renewal = renewals.remove(key);
        if (renewal != null) {
            renewal.end();
        }
    }

    /**
     * Ends every renewal of lock {@code name}, whatever its kind and owner, whose acquisitions were
     * all confirmed before {@code sentNanos}: a force unlock sent then deleted the lock. A hold
     * confirmed since may have been taken after it ran, and is left to its renewal.
     */
    public void cancelAll(String name, long sentNanos) {
        leaseClocks.forceReleased(name);
        silence.endUnrenewed(name, sentNanos);
        dispatchLock.lock();
        try {
            renewals.values().removeIf(renewal -> {
                if (renewal.protocol.name().equals(name) && renewal.acquiredBefore(sentNanos)) {
                    renewal.end();
                    return true;
                }
                return false;
            });
        } finally {
            dispatchLock.unlock();
        }
    }

    /** Owners whose leases are renewed now; for tests and metrics. */
    public int activeRenewals() {
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
                nextRound = timer.newTimeout(this::round, periodMillis(), TimeUnit.MILLISECONDS);
            }
        }
    }

    /** Runs one renewal round now; rounds also run by themselves every period. */
    void renewAll() {
        silence.prune();
        if (renewals.isEmpty()) {
            return;
        }
        dispatchLock.lock();
        try {
            // in the order the renewals were found, not by the scripts' identity hashes: a seeded
            // simulation then sends the same calls in the same order every run
            Map<Group, List<Renewal>> batches = new LinkedHashMap<>();
            for (Renewal renewal : renewals.values()) {
                if (renewal.state() != State.ACTIVE) {
                    continue;
                }
                Group group = new Group(cluster ? RedisBackend.slot(renewal.protocol.name()) : 0,
                        renewal.protocol.renewScript());
                List<Renewal> batch = batches.computeIfAbsent(group, g -> new ArrayList<>());
                batch.add(renewal);
                if (batch.size() == BATCH) {
                    calls.send(batch);
                    batches.remove(group);
                }
            }
            batches.values().forEach(calls::send);
        } finally {
            dispatchLock.unlock();
        }
    }

    /** Renewals sent in one call: one script, one Cluster slot. */
    private record Group(int slot, LuaScript script) {
    }

    private void lost(Renewal renewal) {
        if (renewal.markLost()) {
            told(renewal, "the lock expired, was deleted or was taken before the watchdog could renew it");
        } // else released or ended meanwhile (the release's reply decides), or already told
    }

    /** Tells everyone concerned that {@code renewal}, now {@code LOST}, lost its lock, for {@code why}. */
    private void told(Renewal renewal, String why) {
        String localKey = renewal.protocol.localKey();
        Owner key = new Owner(localKey, renewal.owner);
        toldLostAt.put(key, clock.nanoTime());
        renewals.remove(key, renewal);
        lossHook.accept(localKey, renewal.owner);
        leaseClocks.lost(renewal.owner);
        String name = renewal.protocol.name();
        log.warn("lease of lock '{}' held by {} was lost: {}", name, renewal.protocol.ownerField(renewal.owner), why);
        if (listener != null) {
            listenerExecutor.execute(() -> {
                try {
                    listener.onLeaseLost(name, renewal.owner);
                } catch (Throwable t) {
                    log.error("lease-lost listener failed for lock '{}'", name, t);
                }
            });
        }
    }

    /** Stops renewing; held locks then expire with their leases. */
    @Override
    public void close() {
        closed = true;
        Timeout round = nextRound;
        if (round != null) {
            round.cancel();
        }
        dispatchLock.lock();
        try {
            renewals.values().forEach(Renewal::end);
            renewals.clear();
            silence.close();
        } finally {
            dispatchLock.unlock();
        }
    }
}
