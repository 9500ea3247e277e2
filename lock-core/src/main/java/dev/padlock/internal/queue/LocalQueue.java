package dev.padlock.internal.queue;

import dev.padlock.internal.acquire.AcquireContext;
import dev.padlock.internal.acquire.HeldBefore;
import dev.padlock.internal.acquire.LockAcquisition;
import dev.padlock.internal.protocol.ExclusiveLockProtocol;
import dev.padlock.internal.protocol.LockProtocol;
import dev.padlock.internal.protocol.LockProtocol.ReleaseOutcome;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

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
 * {@link LockAcquisition} loop ({@link TicketRunner}); while the lock is held or a head runs, other
 * owners wait in a FIFO queue ({@link Tickets}) and send nothing. A release hands the lock to the
 * first of them, or releases it on Redis ({@link LocalRelease}, within a {@link HandOffBudget}); for
 * kinds that grant, clients take turns ({@link GrantTurns}).
 *
 * <p><b>Redis corrects the view.</b> A reply that contradicts it wins: a release or hand-off that
 * found the holder's field gone forgets the holder; an acquisition confirmed for another owner makes
 * that owner the holder; the watchdog's lost lease and this client's force unlock forget the
 * holder, and so does the end of the holder's fixed lease ({@link HolderLeaseWatch}); a force
 * unlock whose reply was lost makes the holder a guess, which queued owners ask Redis about. Events that
 * say the lock <em>may</em> be free without naming an owner (an unlock message on the lock's
 * channel, a resubscription after a reconnect or failover: {@link ChannelWatches}; a poll for spin
 * waiters: {@link SpinPoller}) make the first queued owner head, holder or not, so it asks Redis;
 * the holder is forgotten only when Redis confirms someone else. A holder is never forgotten on a
 * guess: its re-entry would queue behind itself.
 *
 * <p><b>Locking.</b> All state is guarded by this object's monitor: this class's own and that of
 * its parts ({@link Tickets}, {@link ConfirmedHolder}, {@link HandOffBudget}, {@link SpinPoller},
 * {@link ChannelWatches}). The classes that talk to Redis for it ({@link TicketRunner},
 * {@link LocalRelease}, {@link GrantTurns}) take the monitor for each change of state, and start
 * Redis calls and complete callers' futures outside it. An idle queue (no holder, no head, nothing
 * in flight, nobody queued) is kept for its lock's next use in one of {@link LocalQueues}' few idle
 * slots; the idle queue it displaces there is retired and leaves the map under its own monitor; a
 * retired queue is never used again. Timeouts run on the client's timer and are cancelled when no
 * longer needed.
 */
public final class LocalQueue {
    /** No owner: nobody of this client holds the lock. */
    static final long NONE = ExclusiveLockProtocol.NO_OWNER;

    /** What {@link #enter} decided for a new acquisition. */
    enum Entry { RUN, RUN_AS_HEAD, QUEUED }

    private final String localKey;
    private final AcquireContext services;
    private final LocalQueues queues;
    private final TicketRunner runner;
    /** Made at the first release, and {@link #grants} at the first grant: a held lock keeps neither. */
    private @Nullable LocalRelease releases;
    private @Nullable GrantTurns grants;

    // guarded by this:
    private final Tickets tickets = new Tickets();
    private final ConfirmedHolder holder;
    private final HandOffBudget budget;
    /** Made when first needed: most queues never see a waiter (see {@link #watches()}). */
    private @Nullable SpinPoller spinPoller;
    private @Nullable ChannelWatches watches;
    /** Releases sent and not yet answered. */
    private int releasesInFlight;
    boolean retired;

    LocalQueue(String localKey, AcquireContext services, LocalQueues queues) {
        this.localKey = localKey;
        this.services = services;
        this.queues = queues;
        this.holder = new ConfirmedHolder(() -> new HolderLeaseWatch(services.timer(), services.clock(),
                this::holderLeaseDue), services.clock());
        this.budget = new HandOffBudget(services.clock());
        this.runner = new TicketRunner(this, tickets, holder, budget, services, queues);
    }

    String localKey() {
        return localKey;
    }

    /** The queue's state, for diagnostics. */
    @Override
    public synchronized String toString() {
        return "LocalQueue[" + localKey + ": holder " + (holder.none() ? "none" : holder.owner()) + ", head "
                + (tickets.headRunning() ? "running" : "none") + ", in flight "
                + (tickets.runCount() + releasesInFlight) + ", queued " + tickets.queuedCount()
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
            tickets.runStarted(ticket);
            return Entry.RUN;
        }
        if (holder.noneOrInDoubt() && !tickets.headRunning() && tickets.noneQueued()) {
            becomeHead(ticket);
            return Entry.RUN_AS_HEAD;
        }
        tickets.queue(ticket);
        ticket.armTimeout(services.timer(), () -> giveUp(ticket));
        watches().watchFor(ticket);
        pollForSpinWaiters();
        return Entry.QUEUED;
    }

    private synchronized LocalRelease releases() {
        if (releases == null) {
            releases = new LocalRelease(this, tickets, holder, budget, runner, services, queues);
        }
        return releases;
    }

    private synchronized GrantTurns grants() {
        if (grants == null) {
            grants = new GrantTurns(this, tickets, holder, services, queues);
        }
        return grants;
    }

    /** The channel watches of queued owners, made at the first; under the monitor. */
    private ChannelWatches watches() {
        if (watches == null) {
            watches = new ChannelWatches(services.wakeUps(), this::probe);
        }
        return watches;
    }

    /** Runs {@code ticket}'s acquisition against Redis, as head or not: see {@link TicketRunner}. */
    void run(Ticket ticket, boolean head) {
        runner.run(ticket, head);
    }

    /**
     * The queued acquisitions of {@code owner}, which now holds the lock: each becomes a re-entry
     * that runs against Redis at once (every acquisition is its own hold), as a new one would
     * ({@link #enter}); under the monitor. The caller runs them, outside it.
     */
    List<Ticket> claimReentries(long owner) {
        List<Ticket> reentries = tickets.claimQueuedOf(owner);
        for (Ticket reentry : reentries) {
            reentry.fresh = false;
            tickets.runStarted(reentry);
        }
        return reentries;
    }

    /**
     * Releases one hold of {@code owner}: see {@link LocalRelease}.
     *
     * @return the reply, or null when this queue is retired (take the name's queue again)
     */
    @Nullable CompletableFuture<ReleaseOutcome> release(LockProtocol protocol, long owner) {
        return releases().release(protocol, owner);
    }

    /**
     * A hand-off to {@code successor} did not happen: it is queued first again, and takes the
     * channels it needs (given back if the queue was empty while the hand-off was out); under the
     * monitor.
     */
    void putBackFirst(Ticket successor) {
        tickets.putBackFirst(successor);
        watches().watchFor(successor);
    }

    /** A release was sent; under the monitor. */
    void releaseSent() {
        releasesInFlight++;
    }

    /** A release was answered (or failed); under the monitor. */
    void releaseAnswered() {
        releasesInFlight--;
        retireIfIdle();
    }

    /**
     * A grant of this lock to {@code owner}: see {@link GrantTurns}.
     *
     * @return false when this queue is retired (take the name's queue again)
     */
    boolean onGranted(LockProtocol protocol, long owner, long nonce) {
        return grants().onGranted(protocol, owner, nonce);
    }

    /**
     * When {@code owner} has acquisitions in this queue already: a future that completes once they
     * all settled; else null. A new acquisition of that owner waits for it (see
     * {@link LocalQueues#acquire}): two first holds of one owner in flight at once could each take
     * the owner's field for its own hold. For an owner that holds, only its acquisitions talking to
     * Redis count (a re-entry never waits for the lock behind its own queued wait): a re-entry whose
     * reply was lost is confirmed by the owner's hold count only while no other acquisition of the
     * owner can move it (a red lock's late replies, say). Under the monitor.
     */
    @Nullable CompletableFuture<Void> earlierOf(long owner) {
        return holds(owner) ? tickets.runsSettledOf(owner) : tickets.settledOf(owner);
    }

    /**
     * How many holds {@code ticket}'s owner has besides {@code ticket}, a re-entry whose reply was
     * lost (see {@link HeldBefore}): the holder's confirmed holds; 0 when it is not the holder (a
     * lost lease, a force unlock); {@link HeldBefore#NOT_YET} while a release is in flight;
     * {@link HeldBefore#UNKNOWN} when it holds through a fair lock object, or while another
     * acquisition of the owner is in flight (which may be in doubt too, and wait for this one).
     */
    synchronized int heldBefore(Ticket ticket) {
        return heldBesides(ticket.owner, ticket);
    }

    /**
     * How many holds {@code owner} has, for a release of it whose reply was lost (see
     * {@link LocalRelease}): as {@link #heldBefore}, with every acquisition of the owner in flight
     * making it {@link HeldBefore#UNKNOWN}.
     */
    synchronized int heldBy(long owner) {
        return heldBesides(owner, null);
    }

    private int heldBesides(long owner, @Nullable Ticket except) {
        if (releasesInFlight > 0) {
            return HeldBefore.NOT_YET;
        }
        if (tickets.runsOf(owner, except)) {
            return HeldBefore.UNKNOWN;
        }
        if (queues.heldElsewhere(localKey, owner)) {
            return HeldBefore.UNKNOWN; // Redis counts those holds too, and this queue does not
        }
        return holder.is(owner) ? holder.holds() : 0;
    }

    /**
     * Whether {@code owner} holds the lock as far as this client knows: as this queue's holder, or
     * through a fair lock object on the same hash (which does not go through this queue). Its
     * acquisitions then re-enter, which counts on Redis, rather than claim. Under the monitor.
     */
    private boolean holds(long owner) {
        return holder.is(owner) || queues.heldElsewhere(localKey, owner);
    }

    /** {@code owner} re-armed the lock with a fixed lease through a kind outside the local view. */
    synchronized void onLeaseSetElsewhere(long owner, long leaseMillis) {
        if (holder.is(owner)) {
            holder.leaseSetElsewhere(leaseMillis);
        }
    }

    /** See {@link ConfirmedHolder#takeSinceDue}. */
    synchronized ConfirmedHolder.@Nullable SinceNote takeSinceDue(long minNanos) {
        return holder.takeSinceDue(minNanos);
    }

    /** Whether this client's holder's since is still to be noted. */
    synchronized boolean sinceDue() {
        return holder.sinceDue();
    }

    /** See {@link ConfirmedHolder#sinceNotNoted}. */
    synchronized void sinceNotNoted(long owner) {
        holder.sinceNotNoted(owner);
    }

    /**
     * Whether {@code owner} holds on after a release that left holds on Redis: it has holds
     * confirmed, an acquisition that may have landed, or holds through a fair lock on the same hash.
     */
    synchronized boolean holdsOn(long owner) {
        return holdsCounted(owner) || tickets.runsOf(owner, null) || queues.heldElsewhere(localKey, owner);
    }

    /** Whether {@code owner} is the holder with holds Redis confirmed (see {@link ConfirmedHolder#holds}). */
    synchronized boolean holdsCounted(long owner) {
        return holder.is(owner) && holder.holds() > 0;
    }

    /** The watchdog found {@code owner}'s lease lost: Redis says it holds nothing. */
    void onLeaseLost(long owner) {
        Ticket next;
        synchronized (this) {
            if (!holder.is(owner)) {
                return;
            }
            holder.forget();
            next = nextHead();
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
            if (holder.confirmedBy(sentAt)) {
                holder.forget();
            }
            next = nextHead();
        }
        startHead(next);
    }

    /**
     * This client's force unlock, sent when {@link LocalQueues#confirmations()} was {@code sentAt},
     * got no answer: it may have deleted the lock. A holder confirmed before it is kept as a guess,
     * and queued owners ask Redis, now and whenever one queues, until Redis confirms an owner.
     */
    void onForceUnlockInDoubt(long sentAt) {
        synchronized (this) {
            holder.doubt(sentAt);
        }
        probe();
    }

    /**
     * Something says the lock may be free (see the class notes): the first queued owner asks
     * Redis, unless an owner of this client already does.
     */
    void probe() {
        Ticket next = null;
        synchronized (this) {
            if (!tickets.headRunning() && !retired) {
                next = tickets.claimFirst();
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
            queued = tickets.drainQueued();
            holder.cancelLeaseCheck();
            if (spinPoller != null) {
                spinPoller.cancel();
            }
            if (watches != null) {
                watches.close();
            }
        }
        for (Ticket ticket : queued) {
            ticket.fail(new IllegalStateException("the LockClient is closed"));
        }
    }

    /** {@code ticket} gave up while queued: it leaves. */
    synchronized void giveUp(Ticket ticket) {
        tickets.remove(ticket);
        retireIfIdle();
    }

    /** Starts the Redis loop for a promoted owner (none when null); outside the monitor. */
    void startHead(@Nullable Ticket ticket) {
        if (ticket != null) {
            runner.run(ticket, true);
        }
    }

    /**
     * Makes the first queued owner head when nobody holds or acquires, then retires the queue if it
     * is idle; under the monitor. The new head, for the caller to start outside it.
     */
    @Nullable Ticket nextHead() {
        Ticket next = null;
        if (holder.noneOrInDoubt() && !tickets.headRunning()) {
            next = tickets.claimFirst();
            if (next != null) {
                becomeHead(next);
            }
        }
        retireIfIdle();
        return next;
    }

    /** Makes {@code ticket} the head; under the monitor. */
    void becomeHead(Ticket ticket) {
        tickets.becomeHead(ticket);
        // a head whose owner holds the lock already (a probe while it queued) re-enters: a claim
        // would count its holds as one
        ticket.fresh = !holds(ticket.owner);
    }

    /** The holder's fixed lease may have run out: see {@link ConfirmedHolder#leaseRanOut}. */
    private void holderLeaseDue() {
        Ticket next;
        synchronized (this) {
            if (!holder.leaseRanOut(services.watchdog()) || retired) {
                return;
            }
            holder.forget();
            next = nextHead();
        }
        startHead(next);
    }

    /** A poll for spin waiters fell due: see {@link SpinPoller}. */
    private void spinPollDue() {
        synchronized (this) {
            if (spinPoller != null) {
                spinPoller.fired();
            }
        }
        probe();
    }

    /** Polls for spin waiters while one is queued and no head runs; under the monitor. */
    private void pollForSpinWaiters() {
        boolean wanted = tickets.spinWaiterQueued() && !tickets.headRunning() && !retired;
        if (wanted && spinPoller == null) {
            spinPoller = new SpinPoller(services.timer(), this::spinPollDue);
        }
        if (spinPoller != null) {
            spinPoller.update(wanted);
        }
    }

    /**
     * Gives the channels back once nobody queues, polls for spin waiters while they queue, and
     * retires the queue once it is idle; under the monitor.
     */
    void retireIfIdle() {
        if (tickets.noneQueued() && watches != null) {
            watches.close();
        }
        pollForSpinWaiters();
        if (idle() && !retired) {
            // kept for the lock's next use, so that a lock taken and released again and again
            // makes no new queue each time; the idle queue it displaces retires
            queues.keepIdle(this, services.timer());
        }
    }

    /**
     * Retires this queue when it is idle and no longer kept in its idle slot: it leaves the map.
     * Called for a queue another one displaced, outside any other queue's monitor.
     */
    synchronized void retireIfDisplaced() {
        if (!retired && idle() && !queues.keeps(this)) {
            retired = true;
            holder.cancelLeaseCheck();
            queues.remove(this);
        }
    }

    /** Whether an owner of this client holds, acquires, releases or waits for the lock. */
    synchronized boolean inUse() {
        return !retired && !idle();
    }

    /** No holder, no head, nothing in flight, nobody queued; under the monitor. */
    private boolean idle() {
        return holder.none() && !tickets.headRunning() && tickets.runCount() == 0 && releasesInFlight == 0
                && tickets.noneQueued();
    }
}
