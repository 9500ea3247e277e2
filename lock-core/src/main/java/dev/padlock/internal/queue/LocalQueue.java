package dev.padlock.internal.queue;

import dev.padlock.internal.acquire.AcquireContext;
import dev.padlock.internal.acquire.AcquireRequest;
import dev.padlock.internal.acquire.LockAcquisition;
import dev.padlock.internal.protocol.ExclusiveLockProtocol;
import dev.padlock.internal.protocol.LockProtocol;
import dev.padlock.internal.protocol.LockProtocol.Release;
import dev.padlock.internal.protocol.LockProtocol.ReleaseOutcome;
import dev.padlock.internal.redis.RedisErrors;
import dev.padlock.internal.renewal.Watchdog;
import dev.padlock.internal.wakeup.WakeUps;
import io.netty.util.Timeout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This client's view of one exclusive lock, shared by every kind of lock object on its name
 * ({@code getLock}, {@code getSpinLock}, {@code getFencedLock}, any owner id): who of this client
 * holds it, and the owners queued for it, of whom at most one talks to Redis.
 *
 * <h2>Implementation notes</h2>
 * <b>The invariant.</b> An owner is told it holds the lock only after a Redis reply that put or
 * found its field in the hash: an acquire, a re-entry or a hand-off, never this class's state
 * alone. What this class keeps (the holder, the queue) only decides who of this client asks Redis
 * next. It keeps no hold counts: the release and hand-off scripts count on Redis and say whether
 * holds remain.
 *
 * <p><b>Queueing.</b> A one-shot {@code tryLock}, a re-entry by the holder and an acquisition that
 * must reach Redis on its own (the fenced lock's token) go to Redis at once. Otherwise, when nobody
 * of this client holds or is acquiring the lock, the caller becomes the <em>head</em> and runs the
 * {@link LockAcquisition} loop; while the lock is held or a head runs, other owners wait in a FIFO
 * queue and send nothing.
 *
 * <p><b>Hand-off.</b> The holder's unlock, with an owner queued and no head running, sends one
 * {@code lock_handoff} call that replaces the holder's field with the successor's and publishes
 * nothing. The successor is told it holds only when that call answers "handed over"; "holds
 * remain" puts it back at the front, "not held" (or a failure) forgets the holder and makes the
 * successor head, which asks Redis. After {@value #MAX_LOCAL_HAND_OFFS} hand-offs in a row, or
 * {@link #MAX_LOCAL_CHAIN_NANOS} of them, the unlock is global instead (delete and publish), so
 * waiters of other clients get their chance; when its message reached other clients, the next
 * local owner first yields about two round trips.
 *
 * <p><b>Redis corrects the view.</b> A reply that contradicts it wins: a release or hand-off that
 * found the holder's field gone forgets the holder; an acquisition confirmed for another owner makes
 * that owner the holder; the watchdog's lost lease and this client's force unlock forget the
 * holder, and so does the end of the holder's fixed lease (measured from after Redis set it, so
 * Redis has dropped the key by then). Events that say the lock <em>may</em> be free without naming
 * an owner (an unlock message on the lock's channel, a resubscription after a reconnect or
 * failover) make the first queued owner head, holder or not, so it asks Redis; the holder is
 * forgotten only when Redis confirms someone else. A holder is never forgotten on a guess: its
 * re-entry would queue behind itself.
 *
 * <p><b>Turns between clients.</b> For kinds that {@linkplain LockProtocol#grants() grant}, the
 * head's failed claim puts this client in line on Redis; the head listens on the client's grant
 * channel while it waits, and this queue while owners queue. A release by another client then passes the lock
 * straight to the head ({@link #onGranted}): one message, no attempt. When the budget ends with
 * owners still queued, the global release puts this client back in line for the first of them, at
 * the tail, as it passes the lock to the next client in line: clients take turns, each up to the
 * budget. A grant writes the lease the owner asked for, so a granted owner holds as if its own
 * claim had taken the lock. A grant nobody here waits for any more is taken over and passed on like a lock whose
 * caller gave up; one for an owner that has started another acquisition is left to that
 * acquisition's claim, which finds it.
 *
 * <p>All state is guarded by this object's monitor. Redis calls and callers' futures are started
 * and completed outside it. An idle queue (no holder, no head, nobody queued) is retired and leaves
 * {@link LocalQueues}' map under the monitor; a retired queue is never used again. Timeouts run on
 * the client's timer and are cancelled when no longer needed.
 */
public final class LocalQueue {
    private static final Logger log = LoggerFactory.getLogger(LocalQueue.class);

    static final long NONE = ExclusiveLockProtocol.NO_OWNER;
    static final int MAX_LOCAL_HAND_OFFS = 32;
    static final long MAX_LOCAL_CHAIN_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long MIN_YIELD_NANOS = TimeUnit.MICROSECONDS.toNanos(200);
    private static final long MAX_YIELD_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    /** What {@link #enter} decided for a new acquisition. */
    enum Entry { RUN, RUN_AS_HEAD, QUEUED }

    private final String localKey;
    private final AcquireContext services;
    private final LocalQueues queues;

    // guarded by this:
    private final ArrayDeque<Ticket> waiters = new ArrayDeque<>();
    private long holder = NONE;
    /**
     * When Redis confirmed the holder, in {@link LocalQueues#confirmations()}' sequence. A reply to a
     * call sent before that (a release, a hand-off, a force unlock whose answer came late, after a
     * {@code NOSCRIPT} retry, say) says nothing about this holder and must not make it forgotten.
     */
    private long holderConfirmedAt;
    /** The kind the holder acquired through, for its renewal's key. */
    private LockProtocol holderProtocol;
    /** {@link System#nanoTime()} when the holder's last fixed lease ends; 0 for a watchdog lease. */
    private long holderLeaseEnd;
    private Timeout holderLeaseCheck;
    /** The lease end {@link #holderLeaseCheck} was scheduled for. */
    private long holderLeaseCheckAt;
    private boolean headRunning;
    /** Acquisitions run outside the queue ({@link Entry#RUN}) and releases, sent and not yet answered. */
    private int inFlight;
    private int handOffs;
    private long chainStart;
    /** The next poll for queued spin waiters, and the back-off after it: see {@link #pollForSpinWaiters}. */
    private Timeout spinPoll;
    private long spinPollMillis = LockAcquisition.MIN_BACK_OFF_MILLIS;
    /** This client's share of the unlock channel while owners queue: see {@link #watchChannel}. */
    private WakeUps.Watch channelWatch;
    /** This client's grant channel while a head runs or owners queue: see {@link #watchGrants}. */
    private WakeUps.Watch grantWatch;
    /** The ticket that runs as head, while {@link #headRunning}. */
    private Ticket headTicket;
    /** Acquisitions started with {@link Entry#RUN}, not yet ended: their owners may be claiming. */
    private final ArrayList<Ticket> runs = new ArrayList<>(2);
    boolean retired;

    LocalQueue(String localKey, AcquireContext services, LocalQueues queues) {
        this.localKey = localKey;
        this.services = services;
        this.queues = queues;
    }

    String localKey() {
        return localKey;
    }

    /** The queue's state, for diagnostics. */
    @Override
    public synchronized String toString() {
        return "LocalQueue[" + localKey + ": holder " + (holder == NONE ? "none" : holder) + ", head "
                + (headRunning ? "running" : "none") + ", in flight " + inFlight + ", queued " + waiters.size()
                + (retired ? ", retired" : "") + "]";
    }

    /**
     * Decides how {@code ticket} acquires; under this monitor (called by {@link LocalQueues}). A
     * {@link Entry#QUEUED} ticket is started later by the queue; the others are started by the
     * caller with {@link #run}, outside the monitor.
     *
     * @param direct whether the acquisition must reach Redis itself (no queueing, no hand-off)
     */
    Entry enter(Ticket ticket, boolean direct) {
        boolean holds = holds(ticket.owner);
        if (direct || ticket.oneShot() || holds) {
            ticket.fresh = !holds;
            inFlight++;
            runs.add(ticket);
            return Entry.RUN;
        }
        if (holder == NONE && !headRunning && waiters.isEmpty()) {
            becomeHead(ticket);
            return Entry.RUN_AS_HEAD;
        }
        waiters.add(ticket);
        ticket.armTimeout(services.timer(), () -> giveUp(ticket));
        watchChannel(ticket);
        watchGrants(ticket);
        pollForSpinWaiters();
        return Entry.QUEUED;
    }

    /**
     * Runs {@code ticket}'s acquisition against Redis. The queue's bookkeeping is done before the
     * caller's future completes, so a caller that goes on (a re-entry right after the acquisition)
     * finds itself the holder. When the caller gave up while the lock was on its way, it is given
     * back.
     */
    void run(Ticket ticket, boolean head) {
        LockAcquisition acquisition = LockAcquisition.create(services, ticket.protocol,
                AcquireRequest.of(ticket.owner, ticket.leaseMillis, ticket.watchdogLease, ticket.remainingNanos(),
                        ticket.spin, ticket.fresh).inLine(head ? ticket.nonce : 0, head && ticket.requeued));
        boolean grantedEarly;
        synchronized (this) {
            ticket.running = acquisition;
            grantedEarly = ticket.grantedEarly;
        }
        if (grantedEarly) {
            acquisition.grant(ticket.nonce);
        }
        acquisition.begin();
        ticket.result.whenComplete((acquired, failure) -> {
            if (ticket.result.isCancelled()) {
                acquisition.result().cancel(false);
            }
        });
        acquisition.result().whenComplete((acquired, failure) -> {
            boolean got = Boolean.TRUE.equals(acquired) && !acquisition.result().isCancelled();
            ticket.token = acquisition.token();
            afterAcquisition(ticket, got, head);
            boolean delivered = failure != null
                    ? ticket.result.completeExceptionally(RedisErrors.unwrap(failure))
                    : ticket.result.complete(got);
            if (got && !delivered) {
                giveBack(ticket);
            } else {
                acquisition.settled().whenComplete((ignored, settleFailure) -> ticket.settled.complete(null));
            }
        });
    }

    /** An acquisition against Redis ended; {@code head} tells whether it was this queue's head. */
    private void afterAcquisition(Ticket ticket, boolean acquired, boolean head) {
        Ticket next;
        List<Ticket> reentries = List.of();
        synchronized (this) {
            if (head) {
                headRunning = false;
                headTicket = null;
            } else {
                inFlight--;
                runs.remove(ticket);
            }
            if (acquired) {
                // Redis put or found this owner's field: on an exclusive lock nobody else holds it
                if (holder != ticket.owner) {
                    handOffs = 0;
                    chainStart = services.clock().nanoTime();
                }
                becomeHolder(ticket);
                reentries = claimReentries(ticket.owner);
            }
            next = promoteIfFree();
            retireIfIdle();
        }
        runReentries(reentries);
        startHead(next);
    }

    /**
     * The queued acquisitions of {@code owner}, which now holds the lock: each becomes a re-entry
     * that runs against Redis at once (every acquisition is its own hold), as a new one would
     * ({@link #enter}); under the monitor.
     */
    private List<Ticket> claimReentries(long owner) {
        List<Ticket> reentries = null;
        for (Iterator<Ticket> it = waiters.iterator(); it.hasNext(); ) {
            Ticket waiting = it.next();
            if (waiting.owner == owner && waiting.claim()) {
                it.remove();
                waiting.fresh = false;
                inFlight++;
                runs.add(waiting);
                if (reentries == null) {
                    reentries = new ArrayList<>(2);
                }
                reentries.add(waiting);
            }
        }
        return reentries == null ? List.of() : reentries;
    }

    /** Runs what {@link #claimReentries} claimed; outside the monitor. */
    private void runReentries(List<Ticket> reentries) {
        for (Ticket reentry : reentries) {
            run(reentry, false);
        }
    }

    /** The caller gave up on a lock that Redis had granted it: release it again. */
    private void giveBack(Ticket ticket) {
        queues.release(ticket.protocol, services, ticket.owner).whenComplete((outcome, failure) -> {
            if (failure != null) {
                log.warn("could not give back lock '{}' after its acquisition was abandoned; its lease will "
                        + "expire: {}", ticket.protocol.name(), failure.toString());
            }
            ticket.settled.complete(null);
        });
    }

    /**
     * Releases one hold of {@code owner}: hands the lock to the first queued owner when the budget
     * allows and nobody of this client is acquiring it, else releases it on Redis. Either way the
     * reply decides what this client believes.
     *
     * @return the reply, or null when this queue is retired (take the name's queue again)
     */
    CompletableFuture<ReleaseOutcome> release(LockProtocol protocol, long owner) {
        Ticket successor = null;
        Ticket next = null;
        long sentAt;
        synchronized (this) {
            if (retired) {
                return null;
            }
            inFlight++;
            if (holder == owner && !headRunning && withinBudget()) {
                successor = claimFirst();
            }
            if (successor == null && !headRunning && protocol.grants()) {
                next = firstInLine();
            }
            sentAt = queues.confirmations();
        }
        CompletableFuture<ReleaseOutcome> reply = successor != null
                ? handOff(protocol, owner, successor, sentAt) : releaseOnRedis(protocol, owner, sentAt, next);
        return reply.whenComplete((outcome, failure) -> {
            synchronized (this) {
                inFlight--;
                retireIfIdle();
            }
        });
    }

    /**
     * Releases on Redis; when {@code next} is not null and the lock goes to another client in line,
     * this client gets back in line for {@code next}'s owner.
     */
    private CompletableFuture<ReleaseOutcome> releaseOnRedis(LockProtocol protocol, long owner, long sentAt,
            Ticket next) {
        Watchdog watchdog = services.watchdog();
        long rearm = watchdog.beforeRelease(protocol, owner) ? watchdog.leaseMillis() : 0;
        long sent = services.clock().nanoTime();
        CompletableFuture<Release> call = next == null ? protocol.release(owner, rearm)
                : protocol.release(owner, rearm, next.owner, next.leaseMillis, next.nonce);
        return call.whenComplete((release, failure) -> {
            if (next != null && failure == null && release.granted()) {
                next.requeued = true;
            }
            ReleaseOutcome outcome = failure == null ? release.outcome() : null;
            watchdog.afterRelease(protocol, owner, outcome == ReleaseOutcome.STILL_HELD);
            if (outcome != ReleaseOutcome.STILL_HELD) {
                afterRelease(owner, outcome, outcome == null ? 0 : yieldAfter(protocol, release, services.clock().nanoTime() - sent),
                        sentAt);
            }
        }).thenApply(Release::outcome);
    }

    /**
     * How long the next local owner waits before it asks Redis, after a global release: when the
     * unlock message reached waiters of other clients, about two round trips, so that the one it
     * woke gets its chance before this client takes the lock again; otherwise no time at all.
     */
    private long yieldAfter(LockProtocol protocol, Release release, long roundTripNanos) {
        if (release.granted()) {
            return 0; // the lock went to the next client in line; this one is back in line
        }
        long others = release.listeners() - (services.wakeUps().isSubscribed(protocol.unlockChannel(NONE)) ? 1 : 0);
        if (others <= 0) {
            return 0;
        }
        return Math.min(MAX_YIELD_NANOS, Math.max(MIN_YIELD_NANOS, 2 * roundTripNanos));
    }

    /**
     * After a release on Redis that dropped the owner's last hold ({@code RELEASED}: the lock is
     * free), found it not held, or failed ({@code outcome} null: unknown, Redis decides next). The
     * owner is forgotten as holder, unless Redis confirmed a holder after the release was sent.
     */
    private void afterRelease(long owner, ReleaseOutcome outcome, long yieldNanos, long sentAt) {
        Ticket next;
        synchronized (this) {
            if (holder == owner && holderConfirmedAt <= sentAt) {
                forgetHolder();
            }
            next = promoteIfFree();
            retireIfIdle();
        }
        if (next != null && yieldNanos > 0) {
            services.timer().newTimeout(timeout -> startHead(next), yieldNanos, TimeUnit.NANOSECONDS);
        } else {
            startHead(next);
        }
    }

    /** Passes the lock from {@code owner} to {@code successor} in one call; see the class notes. */
    private CompletableFuture<ReleaseOutcome> handOff(LockProtocol protocol, long owner, Ticket successor,
            long sentAt) {
        Watchdog watchdog = services.watchdog();
        long rearm = watchdog.beforeRelease(protocol, owner) ? watchdog.leaseMillis() : 0;
        return protocol.handOff(owner, successor.owner, successor.leaseMillis, rearm).whenComplete((outcome, failure) -> {
            watchdog.afterRelease(protocol, owner, outcome == ReleaseOutcome.STILL_HELD);
            if (outcome == ReleaseOutcome.RELEASED) {
                handedOver(successor);
            } else if (outcome == ReleaseOutcome.STILL_HELD) {
                synchronized (this) {
                    waiters.addFirst(successor); // the owner holds on: the successor waits again
                }
                if (!successor.unclaim()) {
                    giveUp(successor);
                }
            } else {
                handOffRefused(owner, successor, failure != null, sentAt);
            }
        });
    }

    /** Redis confirmed the hand-off: the successor holds the lock. */
    private void handedOver(Ticket successor) {
        services.watchdog().onHandedOver(successor.protocol, successor.owner, successor.watchdogLease);
        List<Ticket> reentries;
        synchronized (this) {
            becomeHolder(successor);
            reentries = claimReentries(successor.owner);
            handOffs++;
            retireIfIdle();
        }
        runReentries(reentries);
        successor.handedOver = true;
        if (!successor.result.complete(true)) {
            giveBack(successor); // it gave up while the lock was on its way
        } else {
            successor.settled.complete(null);
        }
    }

    /**
     * The holder did not hold the lock any more, or the call's reply was lost ({@code unknown}):
     * forget it, and let the successor ask Redis as head. Its attempt is a claim, so a hand-off
     * that landed unanswered is found there; a successor that gave up meanwhile has it given back.
     */
    private void handOffRefused(long owner, Ticket successor, boolean unknown, long sentAt) {
        Ticket head = successor;
        synchronized (this) {
            if (holder == owner && holderConfirmedAt <= sentAt) {
                forgetHolder();
            }
            if (headRunning) {
                waiters.addFirst(successor);
                head = null;
            } else {
                becomeHead(successor);
            }
        }
        if (head == null && !successor.unclaim()) {
            giveUp(successor);
            if (unknown && successor.protocol.claims()) {
                services.abandonments().abandon(successor.protocol, successor.owner, successor.leaseMillis);
            }
        }
        startHead(head);
    }

    /**
     * A release by another client passed the lock to {@code owner} of this client, answering the
     * place in line with {@code nonce}: Redis put the owner's field in. The head it was meant for
     * takes it; otherwise see the class notes.
     *
     * @return false when this queue is retired (take the name's queue again)
     */
    boolean onGranted(LockProtocol protocol, long owner, long nonce) {
        LockAcquisition acquisition = null;
        synchronized (this) {
            if (retired) {
                return false;
            }
            if (headTicket != null && headTicket.nonce == nonce && headTicket.owner == owner) {
                if (headTicket.running == null) {
                    headTicket.grantedEarly = true; // run() hands it to the acquisition it starts
                    return true;
                }
                acquisition = headTicket.running instanceof LockAcquisition running ? running : null;
            }
        }
        if (acquisition != null && acquisition.grant(nonce)) {
            return true;
        }
        synchronized (this) {
            if (retired) {
                return false;
            }
            if (holder == owner || acquiring(owner)) {
                // the owner holds (a claim found the granted field first) or is acquiring again:
                // its claim finds the field, so the grant is not lost
                return true;
            }
            // nobody here wants it: this client holds it for the owner; pass it on
            holder = owner;
            holderConfirmedAt = queues.confirmed();
            holderProtocol = protocol;
            holderLeaseEnd = 0;
        }
        log.debug("lock '{}' was granted to {} of this client, which no longer waits: passing it on",
                protocol.name(), owner);
        queues.release(protocol, services, owner).whenComplete((outcome, failure) -> {
            if (failure != null) {
                log.warn("could not pass on lock '{}' granted to an owner that no longer waits; its lease "
                        + "will expire: {}", protocol.name(), failure.toString());
            }
        });
        return true;
    }

    /**
     * When {@code owner}, which does not hold the lock, has acquisitions in this queue already
     * (head, queued or run): a future that completes once they all settled; else null. A new
     * acquisition of that owner waits for it (see {@link LocalQueues#acquire}): two acquisitions of
     * one owner in flight at once could each take the owner's field for its own hold. Under the
     * monitor.
     */
    CompletableFuture<Void> earlierOf(long owner) {
        if (holds(owner)) {
            return null; // a re-entry runs at once, and counts on Redis
        }
        List<CompletableFuture<Void>> earlier = new ArrayList<>(2);
        if (headTicket != null && headTicket.owner == owner) {
            earlier.add(headTicket.settled);
        }
        for (Ticket ticket : waiters) {
            if (ticket.owner == owner) {
                earlier.add(ticket.settled);
            }
        }
        for (Ticket ticket : runs) {
            if (ticket.owner == owner) {
                earlier.add(ticket.settled);
            }
        }
        return earlier.isEmpty() ? null : CompletableFuture.allOf(earlier.toArray(CompletableFuture[]::new));
    }

    /**
     * Whether {@code owner} holds the lock as far as this client knows: as this queue's holder, or
     * through a fair lock object on the same hash (which does not go through this queue). Its
     * acquisitions then re-enter, which counts on Redis, rather than claim. Under the monitor.
     */
    private boolean holds(long owner) {
        return holder == owner || queues.heldElsewhere(localKey, owner);
    }

    /** Whether {@code owner} has an acquisition in this queue: head, queued or run; under the monitor. */
    private boolean acquiring(long owner) {
        if (headTicket != null && headTicket.owner == owner) {
            return true;
        }
        for (Ticket ticket : waiters) {
            if (ticket.owner == owner) {
                return true;
            }
        }
        for (Ticket ticket : runs) {
            if (ticket.owner == owner) {
                return true;
            }
        }
        return false;
    }

    /** The watchdog found {@code owner}'s lease lost: Redis says it holds nothing. */
    void onLeaseLost(long owner) {
        Ticket next;
        synchronized (this) {
            if (holder != owner) {
                return;
            }
            forgetHolder();
            next = promoteIfFree();
            retireIfIdle();
        }
        startHead(next);
    }

    /**
     * This client force-unlocked the lock: nobody held it when the force unlock ran, so a holder
     * Redis confirmed before {@code sentAt} (see {@link LocalQueues#confirmations()}) holds no more.
     */
    void onForceUnlocked(long sentAt) {
        Ticket next;
        synchronized (this) {
            if (holderConfirmedAt <= sentAt) {
                forgetHolder();
            }
            next = promoteIfFree();
            retireIfIdle();
        }
        startHead(next);
    }

    /**
     * Something says the lock may be free (see the class notes): the first queued owner asks
     * Redis, unless an owner of this client already does.
     */
    void probe() {
        Ticket next = null;
        synchronized (this) {
            if (!headRunning && !retired) {
                next = claimFirst();
                if (next != null) {
                    becomeHead(next);
                }
                retireIfIdle();
            }
        }
        startHead(next);
    }

    /** Fails every queued owner: the client is closing. */
    void close() {
        Ticket[] queued;
        synchronized (this) {
            queued = waiters.toArray(new Ticket[0]);
            waiters.clear();
            cancelHolderLeaseCheck();
            cancelSpinPoll();
            unwatchChannel();
            unwatchGrants();
        }
        for (Ticket ticket : queued) {
            ticket.fail(new IllegalStateException("the LockClient is closed"));
        }
    }

    private void giveUp(Ticket ticket) {
        synchronized (this) {
            waiters.remove(ticket);
            retireIfIdle();
        }
    }

    /** Starts the Redis loop for a promoted owner; outside the monitor. */
    private void startHead(Ticket ticket) {
        if (ticket != null) {
            run(ticket, true);
        }
    }

    /** Makes the first queued owner head when nobody holds or acquires; under the monitor. */
    private Ticket promoteIfFree() {
        if (holder != NONE || headRunning) {
            return null;
        }
        Ticket next = claimFirst();
        if (next != null) {
            becomeHead(next);
        }
        return next;
    }

    /** Makes {@code ticket} the head; under the monitor. */
    private void becomeHead(Ticket ticket) {
        headRunning = true;
        headTicket = ticket;
        // a head whose owner holds the lock already (a probe while it queued) re-enters: a claim
        // would count its holds as one
        ticket.fresh = !holds(ticket.owner);
    }

    /** The first queued owner that can take a grant (not a spin waiter), or null; under the monitor. */
    private Ticket firstInLine() {
        Ticket first = waiters.peekFirst();
        return first == null || first.spin ? null : first;
    }

    private Ticket claimFirst() {
        for (Iterator<Ticket> it = waiters.iterator(); it.hasNext(); ) {
            Ticket ticket = it.next();
            it.remove();
            if (ticket.claim()) {
                return ticket;
            }
        }
        return null;
    }

    private boolean withinBudget() {
        return handOffs < MAX_LOCAL_HAND_OFFS && services.clock().nanoTime() - chainStart < MAX_LOCAL_CHAIN_NANOS;
    }

    /**
     * Redis confirmed {@code ticket}'s owner holds the lock: it is the holder. A fixed lease that
     * the watchdog does not renew is watched, so queued owners ask Redis when it ends.
     */
    private void becomeHolder(Ticket ticket) {
        holder = ticket.owner;
        holderConfirmedAt = queues.confirmed();
        holderProtocol = ticket.protocol;
        holderLeaseEnd = ticket.watchdogLease ? 0 : services.clock().nanoTime() + TimeUnit.MILLISECONDS.toNanos(ticket.leaseMillis);
        if (holderLeaseEnd != 0 && (holderLeaseCheck == null || holderLeaseEnd - holderLeaseCheckAt < 0)) {
            cancelHolderLeaseCheck();
            watchHolderLease();
        }
    }

    /**
     * Schedules {@link #holderLeaseEnded} for the end of the holder's fixed lease; under the monitor.
     * One check per queue at a time: a check that finds the lease moved on schedules the next.
     */
    private void watchHolderLease() {
        long delay = Math.max(0, holderLeaseEnd - services.clock().nanoTime()) + TimeUnit.MILLISECONDS.toNanos(1);
        holderLeaseCheckAt = holderLeaseEnd;
        holderLeaseCheck = services.timer().newTimeout(timeout -> holderLeaseEnded(), delay, TimeUnit.NANOSECONDS);
    }

    /**
     * The holder's fixed lease is over by this client's clock, which started it after Redis did:
     * the key has expired, unless an acquisition since then (which set the lease anew) says otherwise.
     */
    private void holderLeaseEnded() {
        Ticket next;
        synchronized (this) {
            holderLeaseCheck = null;
            if (holder == NONE || holderLeaseEnd == 0 || retired) {
                return;
            }
            if (services.clock().nanoTime() - holderLeaseEnd < 0) {
                watchHolderLease(); // a later holder or re-entry set a new lease
                return;
            }
            if (services.watchdog().isRenewing(holderProtocol, holder)) {
                return; // a fixed-lease re-entry of a renewed hold: its release or lost lease will say
            }
            forgetHolder();
            next = promoteIfFree();
            retireIfIdle();
        }
        startHead(next);
    }

    private void forgetHolder() {
        holder = NONE;
        holderProtocol = null;
        holderLeaseEnd = 0;
        cancelHolderLeaseCheck();
    }

    private void cancelHolderLeaseCheck() {
        if (holderLeaseCheck != null) {
            holderLeaseCheck.cancel();
            holderLeaseCheck = null;
        }
    }

    /**
     * While owners queue for a pub/sub lock, this client stays subscribed to its unlock channel: a
     * message there (another client's force unlock, say) or a resubscription makes the first queued
     * owner ask Redis, even while this client believes it holds the lock. Under the monitor.
     */
    private void watchChannel(Ticket ticket) {
        if (channelWatch == null && !ticket.spin) {
            channelWatch = services.wakeUps().watch(ticket.protocol.unlockChannel(ticket.owner), this::probe);
        }
    }

    /**
     * While owners queue for a kind that grants, this client listens on its grant channel for the
     * lock, so a turn the client was put back in line for is heard between two heads (the messages
     * themselves reach {@link LocalQueues#onGranted}; a head that waits listens itself, see
     * {@link LockAcquisition}). Under the monitor.
     */
    private void watchGrants(Ticket ticket) {
        if (grantWatch == null && !ticket.spin && ticket.protocol.grants()) {
            grantWatch = services.wakeUps().watch(ticket.protocol.grantChannel(), () -> { });
        }
    }

    private void unwatchGrants() {
        if (grantWatch != null) {
            grantWatch.close();
            grantWatch = null;
        }
    }

    private void unwatchChannel() {
        if (channelWatch != null) {
            channelWatch.close();
            channelWatch = null;
        }
    }

    /**
     * Spin waiters (the spin lock, for setups without pub/sub) queued behind a holder do not rely on
     * the unlock channel: while any waits and no head runs, the first queued owner asks Redis after
     * a back-off that doubles up to {@link LockAcquisition#MAX_BACK_OFF_MILLIS}, as a spin lock
     * polls. Under the monitor.
     */
    private void pollForSpinWaiters() {
        boolean spinWaiter = false;
        for (Ticket ticket : waiters) {
            spinWaiter |= ticket.spin;
        }
        if (!spinWaiter || headRunning || retired) {
            cancelSpinPoll();
            spinPollMillis = LockAcquisition.MIN_BACK_OFF_MILLIS;
            return;
        }
        if (spinPoll == null) {
            long millis = spinPollMillis;
            spinPollMillis = Math.min(LockAcquisition.MAX_BACK_OFF_MILLIS, spinPollMillis * 2);
            spinPoll = services.timer().newTimeout(timeout -> {
                synchronized (this) {
                    spinPoll = null;
                }
                probe();
            }, millis, TimeUnit.MILLISECONDS);
        }
    }

    private void cancelSpinPoll() {
        if (spinPoll != null) {
            spinPoll.cancel();
            spinPoll = null;
        }
    }

    private void retireIfIdle() {
        if (waiters.isEmpty()) {
            unwatchChannel();
            unwatchGrants();
        }
        pollForSpinWaiters();
        if (holder == NONE && !headRunning && inFlight == 0 && waiters.isEmpty() && !retired) {
            retired = true;
            cancelHolderLeaseCheck();
            queues.remove(this);
        }
    }
}
