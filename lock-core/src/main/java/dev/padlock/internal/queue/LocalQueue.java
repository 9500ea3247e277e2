package dev.padlock.internal.queue;

import dev.padlock.internal.acquire.AcquireContext;
import dev.padlock.internal.acquire.HeldBefore;
import dev.padlock.internal.acquire.LockAcquisition;
import dev.padlock.internal.protocol.ExclusiveLockProtocol;
import dev.padlock.internal.protocol.LockProtocol;
import dev.padlock.internal.protocol.LockProtocol.ReleaseOutcome;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

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
 * {@link ChannelWatches}, {@link HolderLeaseWatch}), which are not thread-safe. Only this file
 * takes the monitor ({@code LocalQueueMonitorTest} checks): every change of state is one of the
 * methods below, named for what happened, and the classes that talk to Redis for the queue get
 * only the transitions they need ({@link TicketRunner.Transitions},
 * {@link LocalRelease.Transitions}) and never see its state. A transition changes state under the
 * monitor, then, outside it, starts Redis calls and timers' work and completes callers' futures
 * (starting a head, running re-entries). The monitor is taken under no other lock of the engine;
 * under it, only {@link LocalQueues}' lock-free map and counters, the parts, the timer, and (by
 * {@link Tickets#runsOf}) an acquisition's {@code mayHaveLanded} are called. An idle queue (no
 * holder, no head, nothing in flight, nobody queued) is kept for its lock's next use in one of
 * {@link LocalQueues}' few idle slots; the idle queue it displaces there is retired on the timer's
 * thread ({@link #retireIfDisplaced}), never under another queue's monitor, and leaves the map; a
 * retired queue is never used again. Timeouts run on the client's timer and are cancelled when no
 * longer needed.
 */
final class LocalQueue implements TicketRunner.Transitions, LocalRelease.Transitions {
    /** No owner: nobody of this client holds the lock. */
    static final long NONE = ExclusiveLockProtocol.NO_OWNER;

    /** How {@link #admit} let a ticket in: an {@link Entry}, or after the owner's earlier acquisitions. */
    sealed interface Admission permits Entry, AfterEarlier {
    }

    /** What {@link #enter} decided for a new acquisition. */
    enum Entry implements Admission { RUN, RUN_AS_HEAD, QUEUED }

    /** The ticket enters once {@code earlier} completed: see {@link #earlierOf}. */
    record AfterEarlier(CompletableFuture<Void> earlier) implements Admission {
    }

    private final String localKey;
    private final AcquireContext services;
    private final LocalQueues queues;
    private final TicketRunner runner;

    // guarded by this:
    private final Tickets tickets = new Tickets();
    private final ConfirmedHolder holder;
    private final HandOffBudget budget;
    /** Made at the first release: a held lock keeps none. */
    private LocalRelease releases;
    /** Made when first needed: most queues never see a waiter (see {@link #watches()}). */
    private SpinPoller spinPoller;
    private ChannelWatches watches;
    /** Releases sent and not yet answered. */
    private int releasesInFlight;
    private boolean retired;

    LocalQueue(String localKey, AcquireContext services, LocalQueues queues) {
        this.localKey = localKey;
        this.services = services;
        this.queues = queues;
        this.holder = new ConfirmedHolder(() -> new HolderLeaseWatch(services.timer(), services.clock(),
                this::holderLeaseDue), services.clock());
        this.budget = new HandOffBudget(services.clock());
        this.runner = new TicketRunner(this, services, queues);
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

    // ---- acquisitions

    /**
     * A new acquisition comes (from {@link LocalQueues}): it enters ({@link #enter}), unless its
     * owner has acquisitions here that have not settled ({@link #earlierOf}); the caller runs a
     * ticket that does not queue ({@link #run}), outside the monitor.
     *
     * @return null when this queue is retired (take the name's queue again)
     */
    synchronized Admission admit(Ticket ticket, boolean direct) {
        if (retired) {
            return null;
        }
        CompletableFuture<Void> earlier = earlierOf(ticket.owner);
        return earlier == null ? enter(ticket, direct) : new AfterEarlier(earlier);
    }

    /**
     * Decides how {@code ticket} acquires. A {@link Entry#QUEUED} ticket is started later by the
     * queue; the others are started by the caller with {@link #run}, outside the monitor.
     *
     * @param direct whether the acquisition must reach Redis itself (no queueing, no hand-off)
     */
    synchronized Entry enter(Ticket ticket, boolean direct) {
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

    /** Runs {@code ticket}'s acquisition against Redis, as head or not: see {@link TicketRunner}. */
    void run(Ticket ticket, boolean head) {
        runner.run(ticket, head);
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
    private CompletableFuture<Void> earlierOf(long owner) {
        return holds(owner) ? tickets.runsSettledOf(owner) : tickets.settledOf(owner);
    }

    @Override
    public synchronized boolean grantedEarly(Ticket ticket) {
        return ticket.grantedEarly;
    }

    @Override
    public synchronized boolean onAcquisitionStarted(Ticket ticket, LockAcquisition acquisition) {
        ticket.running = acquisition;
        return ticket.grantedEarly;
    }

    /**
     * Redis confirmed {@code ticket}'s owner (a new chain of the {@link HandOffBudget} when it was
     * not the holder), or did not: see {@link TicketRunner.Transitions#onAcquisitionEnded}.
     */
    @Override
    public void onAcquisitionEnded(Ticket ticket, boolean acquired, boolean head) {
        Ticket next;
        List<Ticket> reentries = List.of();
        synchronized (this) {
            if (head) {
                tickets.headEnded();
            } else {
                tickets.runEnded(ticket);
            }
            if (acquired) {
                // Redis put or found this owner's field: on an exclusive lock nobody else holds it
                if (!holder.is(ticket.owner)) {
                    budget.restart();
                }
                boolean firstHolder = holder.none();
                holder.confirm(ticket, queues.confirmed());
                if (firstHolder) {
                    queues.holdStarted();
                }
                reentries = tickets.claimReentriesOf(ticket.owner);
            }
            next = nextHead();
        }
        runner.runReentries(reentries);
        startHead(next);
    }

    /** {@code ticket} gave up while queued: it leaves. */
    synchronized void giveUp(Ticket ticket) {
        tickets.remove(ticket);
        retireIfIdle();
    }

    /**
     * A release by another client passed the lock to {@code owner} of this client, answering the
     * place in line with {@code nonce}: Redis put the owner's field in. The head's acquisition takes
     * it (or the one about to start: {@link #onAcquisitionStarted}); an owner that holds or acquires
     * finds the field with its own claim; else this client passes it on. See {@link GrantTurns}.
     *
     * @return false when this queue is retired (take the name's queue again)
     */
    boolean onGranted(LockProtocol protocol, long owner, long nonce) {
        LockAcquisition acquisition = null;
        synchronized (this) {
            if (retired) {
                return false;
            }
            Ticket head = tickets.head();
            if (head != null && head.nonce == nonce && head.owner == owner) {
                if (head.running == null) {
                    head.grantedEarly = true; // the runner hands it to the acquisition it starts
                    return true;
                }
                acquisition = head.running instanceof LockAcquisition running ? running : null;
            }
        }
        if (acquisition != null && acquisition.grant(nonce)) {
            return true;
        }
        synchronized (this) {
            if (retired) {
                return false;
            }
            if (holder.is(owner) || tickets.acquiring(owner)) {
                // the owner holds (a claim found the granted field first) or is acquiring again:
                // its claim finds the field, so the grant is not lost
                return true;
            }
            holder.holdForPassOn(protocol, owner, queues.confirmed());
        }
        GrantTurns.passOn(queues, services, protocol, owner);
        return true;
    }

    // ---- releases

    /**
     * Releases one hold of {@code owner}: hands the lock to the first queued owner when the budget
     * allows, the owner holds no other hold and nobody of this client is acquiring it, else releases
     * it on Redis (putting this client back in line: {@link GrantTurns#nextInLine}). Either way
     * {@link LocalRelease} sends it, outside the monitor, and the reply decides what this client
     * believes.
     *
     * @return the reply, or null when this queue is retired (take the name's queue again)
     */
    CompletableFuture<ReleaseOutcome> release(LockProtocol protocol, long owner) {
        LocalRelease sender;
        Ticket successor = null;
        Ticket next = null;
        long sentAt;
        synchronized (this) {
            if (retired) {
                return null;
            }
            releasesInFlight++;
            if (holder.is(owner) && holder.holds() <= 1 && !tickets.headRunning() && budget.allowsHandOff()) {
                successor = tickets.claimFirst();
            }
            if (successor == null) {
                next = GrantTurns.nextInLine(protocol, tickets);
            }
            sentAt = queues.confirmations();
            if (releases == null) {
                releases = new LocalRelease(this, runner, services);
            }
            sender = releases;
        }
        return successor != null
                ? sender.handOff(protocol, owner, successor, sentAt) : sender.releaseOnRedis(protocol, owner, sentAt, next);
    }

    @Override
    public synchronized void onReleaseAnswered() {
        releasesInFlight--;
        retireIfIdle();
    }

    @Override
    public synchronized boolean onHoldsRemain(long owner) {
        if (!holder.is(owner)) {
            return true;
        }
        holder.releasedOne();
        return holder.holds() > 0 || tickets.runsOf(owner, null) || queues.heldElsewhere(localKey, owner);
    }

    @Override
    public synchronized boolean heldMoreThanOnce(long owner, long sentAt) {
        return holder.is(owner) && holder.confirmedBy(sentAt) && holder.holds() > 1;
    }

    @Override
    public void onReleased(long owner, long sentAt, long yieldNanos) {
        Ticket next;
        synchronized (this) {
            holder.forgetIfConfirmedBefore(owner, sentAt);
            next = nextHead();
        }
        if (next != null && yieldNanos > 0) {
            services.timer().newTimeout(timeout -> startHead(next), yieldNanos, TimeUnit.NANOSECONDS);
        } else {
            startHead(next);
        }
    }

    @Override
    public void onHandOffHeldOn(long owner, Ticket successor) {
        synchronized (this) {
            if (holder.is(owner)) {
                holder.releasedOne();
            }
            putBackFirst(successor);
        }
        if (!successor.unclaim()) {
            giveUp(successor);
        }
    }

    @Override
    public void onHandedOver(Ticket successor) {
        List<Ticket> reentries;
        synchronized (this) {
            holder.confirm(successor, queues.confirmed());
            reentries = tickets.claimReentriesOf(successor.owner);
            budget.handedOff();
            retireIfIdle();
        }
        runner.runReentries(reentries);
    }

    /**
     * The holder did not hold the lock any more, or the hand-off's reply was lost: forget it (if
     * Redis confirmed it before {@code sentAt}), and let the successor ask Redis as head, or queue it
     * first again when a head runs; a successor that gave up meanwhile leaves.
     */
    @Override
    public boolean onHandOffRefused(long owner, Ticket successor, long sentAt) {
        Ticket head = successor;
        synchronized (this) {
            holder.forgetIfConfirmedBefore(owner, sentAt);
            if (tickets.headRunning()) {
                putBackFirst(successor);
                head = null;
            } else {
                becomeHead(successor);
            }
        }
        if (head == null && !successor.unclaim()) {
            giveUp(successor);
            return true;
        }
        startHead(head);
        return false;
    }

    /**
     * A hand-off to {@code successor} did not happen: it is queued first again, and takes the
     * channels it needs (given back if the queue was empty while the hand-off was out); under the
     * monitor.
     */
    private void putBackFirst(Ticket successor) {
        tickets.putBackFirst(successor);
        watches().watchFor(successor);
    }

    // ---- what this client knows of the holder

    /**
     * How many holds {@code ticket}'s owner has besides {@code ticket}, a re-entry whose reply was
     * lost (see {@link HeldBefore}): the holder's confirmed holds; 0 when it is not the holder (a
     * lost lease, a force unlock); {@link HeldBefore#NOT_YET} while a release is in flight;
     * {@link HeldBefore#UNKNOWN} when it holds through a fair lock object, or while another
     * acquisition of the owner is in flight (which may be in doubt too, and wait for this one).
     */
    @Override
    public synchronized int heldBefore(Ticket ticket) {
        return heldBesides(ticket.owner, ticket);
    }

    /**
     * How many holds {@code owner} has, for a release of it whose reply was lost (see
     * {@link LocalRelease}): as {@link #heldBefore}, with every acquisition of the owner in flight
     * making it {@link HeldBefore#UNKNOWN}.
     */
    @Override
    public synchronized int heldBy(long owner) {
        return heldBesides(owner, null);
    }

    private int heldBesides(long owner, Ticket except) {
        if (releasesInFlight > 0) {
            return HeldBefore.NOT_YET;
        }
        // Redis counts the holds through a fair lock too, and this queue does not
        if (tickets.runsOf(owner, except) || queues.heldElsewhere(localKey, owner)) {
            return HeldBefore.UNKNOWN;
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

    /** Whether {@code owner} is the holder with holds Redis confirmed (see {@link ConfirmedHolder#holds}). */
    synchronized boolean holdsCounted(long owner) {
        return holder.is(owner) && holder.holds() > 0;
    }

    /** {@code owner} re-armed the lock with a fixed lease through a kind outside the local view. */
    synchronized void onLeaseSetElsewhere(long owner, long leaseMillis) {
        if (holder.is(owner)) {
            holder.leaseSetElsewhere(leaseMillis);
        }
    }

    /** See {@link ConfirmedHolder#takeSinceDue}. */
    synchronized ConfirmedHolder.SinceNote takeSinceDue(long minNanos) {
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

    // ---- waking queued owners

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

    /** A poll for spin waiters fell due: see {@link SpinPoller}. */
    private void spinPollDue() {
        synchronized (this) {
            if (spinPoller != null) {
                spinPoller.fired();
            }
        }
        probe();
    }

    /** The channel watches of queued owners, made at the first; under the monitor. */
    private ChannelWatches watches() {
        if (watches == null) {
            watches = new ChannelWatches(services.wakeUps(), this::probe);
        }
        return watches;
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

    /** Starts the Redis loop for a promoted owner (none when null); outside the monitor. */
    private void startHead(Ticket ticket) {
        if (ticket != null) {
            runner.run(ticket, true);
        }
    }

    /**
     * Makes the first queued owner head when nobody holds or acquires, then retires the queue if it
     * is idle; under the monitor. The new head, for the caller to start outside it.
     */
    private Ticket nextHead() {
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
    private void becomeHead(Ticket ticket) {
        tickets.becomeHead(ticket);
        // a head whose owner holds the lock already (a probe while it queued) re-enters: a claim
        // would count its holds as one
        ticket.fresh = !holds(ticket.owner);
    }

    // ---- life cycle

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

    /**
     * Gives the channels back once nobody queues, polls for spin waiters while they queue, and
     * retires the queue once it is idle; under the monitor.
     */
    private void retireIfIdle() {
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
