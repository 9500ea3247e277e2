package dev.padlock.internal.observe;

import static dev.padlock.internal.base.Nulls.castToNonNull;

import dev.padlock.LockObserver;
import dev.padlock.LockObserver.AcquisitionEnd;
import dev.padlock.LockObserver.HoldEnd;
import dev.padlock.LockObserver.Kind;
import dev.padlock.LockObserver.Outcome;
import dev.padlock.LockObserver.RenewalOutcome;
import dev.padlock.internal.acquire.PendingAcquire;
import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.protocol.LockProtocol;
import dev.padlock.internal.protocol.LockProtocol.ReleaseOutcome;
import dev.padlock.internal.redis.RedisErrors;
import dev.padlock.internal.renewal.RenewalListener;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client's {@link LockObserver}, when one is set: turns acquisitions, releases and the
 * watchdog's findings into its calls, and keeps each hold's start (by lock and owner) from its
 * acquisition to its end. Exists only when an observer is set, so a client without one pays a
 * null check. Every call to the observer is guarded: what it throws is logged, never passed on.
 *
 * <p>The caller of a lock method is told after the observer: the futures a caller sees are
 * derived from the ones Padlock completes, through the callbacks here ({@link
 * ObservedAcquire#reported()}, {@link #release}), so an owner that unlocks right after acquiring
 * finds its hold recorded.
 */
public final class Observing implements RenewalListener {
    private static final Logger log = LoggerFactory.getLogger(Observing.class);
    private final EngineClock clock;

    private final LockObserver observer;
    /** Holds in progress, by lock and owner; an entry lives from a first hold to its end. */
    private final ConcurrentHashMap<HoldKey, Hold> holds = new ConcurrentHashMap<>();

    public Observing(LockObserver observer, EngineClock clock) {
        this.clock = clock;
        this.observer = observer;
    }

    private record HoldKey(String localKey, long owner) {
    }

    /** A hold in progress; {@code holds} counts the re-entries of a composite (multi, red) lock, which keeps no count on Redis of its own. */
    private record Hold(String name, Kind kind, long startNanos, @Nullable Object context, java.util.concurrent.atomic.AtomicInteger holds) {
    }

    /** Holds in progress; for tests. */
    int holds() {
        return holds.size();
    }

    /**
     * Watches {@code acquisition}, started just now by {@code owner} with a wait of
     * {@code waitNanos} (0: a single attempt).
     */
    public ObservedAcquire started(PendingAcquire acquisition, LockProtocol protocol, Kind kind, long owner, long waitNanos,
            long startNanos) {
        return started(acquisition, protocol.name(), protocol.localKey(), kind, owner, waitNanos, startNanos);
    }

    /**
     * Watches {@code acquisition} of the lock {@code name}, known locally as {@code localKey}
     * (for a composite lock: a key of its own), started just now by {@code owner} with a wait of
     * {@code waitNanos} (0: a single attempt, which ends {@link Outcome#BUSY} rather than
     * {@link Outcome#TIMED_OUT} when the lock is held).
     */
    public ObservedAcquire started(PendingAcquire acquisition, String name, String localKey, Kind kind, long owner,
            long waitNanos, long startNanos) {
        Object context = null;
        try {
            context = observer.acquisitionStarted(name, kind, owner);
        } catch (Throwable t) {
            failed("acquisitionStarted", t);
        }
        return new ObservedAcquire(acquisition, this, name, localKey, kind, owner, waitNanos == 0, startNanos, context);
    }

    /** An acquisition ended; called before its caller is told. */
    void ended(ObservedAcquire acquisition, @Nullable Boolean acquired, @Nullable Throwable failure) {
        Outcome outcome = outcome(acquisition, acquired, failure);
        HoldKey key = new HoldKey(acquisition.localKey, acquisition.owner);
        Hold held = outcome == Outcome.ACQUIRED ? holds.get(key) : null;
        boolean reentry = held != null;
        if (reentry && composite(acquisition.kind)) {
            castToNonNull(held).holds.incrementAndGet(); // reentry: held is not null
        }
        long now = clock.nanoTime();
        Object holdContext = null;
        try {
            holdContext = observer.acquisitionEnded(new AcquisitionEnd(acquisition.name, acquisition.kind,
                    acquisition.owner, outcome, now - acquisition.startNanos, acquisition.handedOver(), reentry),
                    acquisition.context);
        } catch (Throwable t) {
            failed("acquisitionEnded", t);
        }
        if (outcome == Outcome.ACQUIRED && !reentry) {
            holds.put(key, new Hold(acquisition.name, acquisition.kind, now, holdContext,
                    new java.util.concurrent.atomic.AtomicInteger(1)));
        }
    }

    private static Outcome outcome(ObservedAcquire acquisition, @Nullable Boolean acquired, @Nullable Throwable failure) {
        if (acquisition.result().isCancelled() || failure != null && RedisErrors.unwrap(failure) instanceof CancellationException) {
            Outcome marked = acquisition.marked;
            return marked != null ? marked : Outcome.CANCELLED;
        }
        if (failure != null) {
            return Outcome.FAILED;
        }
        if (Boolean.TRUE.equals(acquired)) {
            return Outcome.ACQUIRED;
        }
        return acquisition.oneShot ? Outcome.BUSY : Outcome.TIMED_OUT;
    }

    /**
     * {@code reply} of one release of {@code owner}, observed: the returned future completes
     * after the observer was told.
     */
    public CompletableFuture<ReleaseOutcome> release(CompletableFuture<ReleaseOutcome> reply, LockProtocol protocol,
            long owner) {
        return reply.whenComplete((outcome, failure) -> {
            if (outcome == ReleaseOutcome.STILL_HELD) {
                return;
            }
            ended(new HoldKey(protocol.localKey(), owner), owner, outcome != ReleaseOutcome.RELEASED);
        });
    }

    /**
     * {@code reply} of one unlock of a composite lock (multi, red) known locally as
     * {@code localKey}, observed: its last re-entry ends the hold; a failure (not held, unknown)
     * ends it as lapsed.
     */
    public CompletableFuture<Void> releaseComposite(CompletableFuture<Void> reply, String localKey, long owner) {
        return reply.whenComplete((ignored, failure) -> {
            HoldKey key = new HoldKey(localKey, owner);
            Hold hold = holds.get(key);
            if (hold != null && (failure != null || hold.holds.decrementAndGet() <= 0)) {
                ended(key, owner, failure != null);
            }
        });
    }

    private void ended(HoldKey key, long owner, boolean lapsed) {
        Hold hold = holds.remove(key);
        if (hold == null) {
            return; // not held as far as this client knew: nothing started, nothing ends
        }
        try {
            observer.released(new HoldEnd(hold.name, hold.kind, owner, clock.nanoTime() - hold.startNanos, lapsed),
                    hold.context);
        } catch (Throwable t) {
            failed("released", t);
        }
    }

    private static boolean composite(Kind kind) {
        return kind == Kind.MULTI || kind == Kind.RED;
    }

    /** The watchdog found {@code owner}'s lease of the lock known as {@code localKey} lost. */
    public void leaseLost(String localKey, long owner) {
        Hold hold = holds.remove(new HoldKey(localKey, owner));
        try {
            observer.leaseLost(hold == null ? localKey : hold.name, hold == null ? Kind.LOCK : hold.kind, owner,
                    hold == null ? null : hold.context);
        } catch (Throwable t) {
            failed("leaseLost", t);
        }
    }

    /** A watchdog renewal call came back for {@code owners} owners. */
    @Override
    public void renewed(int owners, RenewalOutcome outcome) {
        if (owners == 0) {
            return;
        }
        try {
            observer.leasesRenewed(owners, outcome);
        } catch (Throwable t) {
            failed("leasesRenewed", t);
        }
    }

    private void failed(String method, Throwable t) {
        log.warn("lock observer {} failed in {}; the lock is not affected", observer, method, t);
    }

    /**
     * An acquisition under observation: the same futures as the one it wraps (a cancel reaches
     * it as it is), plus {@link #reported()}, which completes as its result does, once the
     * observer was told.
     */
    public static final class ObservedAcquire implements PendingAcquire {
        private final PendingAcquire acquisition;
        final String name;
        final String localKey;
        final Kind kind;
        final long owner;
        /** A single attempt without a wait. */
        final boolean oneShot;
        final long startNanos;
        final @Nullable Object context;
        /** How a cancel is to be reported; set by the waiting thread before it cancels. */
        volatile @Nullable Outcome marked;
        private final CompletableFuture<Boolean> reported;

        ObservedAcquire(PendingAcquire acquisition, Observing observing, String name, String localKey, Kind kind,
                long owner, boolean oneShot, long startNanos, @Nullable Object context) {
            this.acquisition = acquisition;
            this.oneShot = oneShot;
            this.name = name;
            this.localKey = localKey;
            this.kind = kind;
            this.owner = owner;
            this.startNanos = startNanos;
            this.context = context;
            this.reported = acquisition.result().whenComplete((acquired, failure) ->
                    observing.ended(this, acquired, failure));
        }

        /** Says how a cancel that follows is to be reported (interrupted, failed). */
        public void mark(Outcome outcome) {
            marked = outcome;
        }

        @Override
        public CompletableFuture<Boolean> result() {
            return acquisition.result();
        }

        @Override
        public CompletableFuture<Boolean> reported() {
            return reported;
        }

        @Override
        public CompletableFuture<Void> settled() {
            return acquisition.settled();
        }

        @Override
        public long token() {
            return acquisition.token();
        }

        @Override
        public @Nullable Throwable lastUnanswered() {
            return acquisition.lastUnanswered();
        }

        @Override
        public boolean handedOver() {
            return acquisition.handedOver();
        }
    }
}
