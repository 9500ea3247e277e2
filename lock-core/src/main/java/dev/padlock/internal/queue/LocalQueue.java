package dev.padlock.internal.queue;

import static dev.padlock.internal.base.Nulls.castToNonNull;

import dev.padlock.internal.acquire.AcquireContext;
import dev.padlock.internal.acquire.HeldBefore;
import dev.padlock.internal.acquire.LockAcquisition;
import dev.padlock.internal.grant.GrantTurns;
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
 * found its field in the hash (an acquire, a re-entry, a hand-off), never on this class's state,
 * which only decides who of this client asks Redis next. Redis counts the holds.
 *
 * <p><b>Queueing.</b> A one-shot {@code tryLock}, a re-entry by the holder and an acquisition that must reach Redis
 * on its own (the fenced lock's token) go to Redis at once. Otherwise, when nobody of this client holds or is
 * acquiring the lock, the caller becomes the <em>head</em> and runs the {@link LockAcquisition} loop
 * ({@link TicketRunner}); while the lock is held or a head runs, other owners wait in a FIFO queue ({@link Tickets})
 * and send nothing. A release hands the lock to the first of them, or releases it on Redis ({@link LocalRelease},
 * within a {@link HandOffBudget}); for kinds that grant, clients take turns ({@link GrantTurns}).
 *
 * <p><b>Redis corrects the view.</b> A reply that contradicts it wins: a release or hand-off that found the holder's
 * field gone, a lost lease, a force unlock and the end of a fixed lease ({@link HolderLeaseWatch}) forget the
 * holder; an acquisition confirmed for another owner makes it the holder; a force unlock whose reply was lost makes
 * it a guess. What says the lock <em>may</em> be free (an unlock message, a resubscription, a spin poll:
 * {@link QueueWakeUps}) makes the first queued owner head, holder or not. A holder is never forgotten on a guess
 * (its re-entry would queue behind itself), but owners that start queueing behind it have it checked
 * ({@link HolderCheck}).
 *
 * <p><b>Locking.</b> All state is guarded by this object's monitor, and only this file takes it
 * ({@code LocalQueueMonitorTest} checks): the fields below and the parts ({@link Tickets}, {@link ConfirmedHolder},
 * {@link HandOffBudget}, {@link QueueWakeUps}), which are not thread-safe. Each change of state is a method here
 * named for what happened; the classes that talk to Redis get only the transitions they need
 * ({@link TicketRunner.Transitions}, {@link LocalRelease.Transitions}). A transition changes state under the
 * monitor and gives back what to start (a head, re-entries); it or its caller starts that outside the monitor,
 * where Redis calls go out and callers' futures complete. The monitor is taken under no other lock; under it run
 * only the parts, {@link LocalQueues}' lock-free map and counters, the timer and acquisitions' volatile reads.
 * An idle queue waits in an idle slot ({@link LocalQueues#keepIdle}; the one it displaces retires).
 */
final class LocalQueue implements TicketRunner.Transitions, LocalRelease.Transitions, HolderCheck.Transitions {
    /** No owner: nobody of this client holds the lock. */
    static final long NONE = ExclusiveLockProtocol.NO_OWNER;

    private final String localKey;
    private final AcquireContext services;
    private final LocalQueues queues;
    final TicketRunner runner; // LocalQueues runs an entered ticket on it

    // guarded by this:
    private final Tickets tickets = new Tickets();
    private final ConfirmedHolder holder;
    private final HandOffBudget budget;
    private final QueueWakeUps wakeUps;
    /** Made when first needed: a held lock keeps no {@link LocalRelease}. */
    private @Nullable LocalRelease releases;
    /** Releases sent and not yet answered. */
    private int releasesInFlight;
    private boolean retired;

    LocalQueue(String localKey, AcquireContext services, LocalQueues queues) {
        this.localKey = localKey;
        this.services = services;
        this.queues = queues;
        this.holder = new ConfirmedHolder(() -> new HolderLeaseWatch(services.timer(), services.clock(),
                () -> run(onHolderLeaseDue(), true)), services.clock());
        this.budget = new HandOffBudget(services.clock());
        this.runner = new TicketRunner(this, services, queues);
        this.wakeUps = new QueueWakeUps(services.wakeUps(), services.timer(), this::probe, this::spinPollDue);
    }

    String localKey() {
        return localKey;
    }

    /** The queue's state, for diagnostics. */
    @Override
    public synchronized String toString() {
        return "LocalQueue[" + localKey + ": holder " + (holder.none() ? "none" : holder.owner()) + ", head "
                + (tickets.headRunning() ? "running" : "none") + ", in flight " + (tickets.runCount()
                + releasesInFlight) + ", queued " + tickets.queuedCount() + (retired ? ", retired" : "") + "]";
    }

    /**
     * A new acquisition enters ({@link #enter}), unless its owner's earlier ones here have not
     * settled ({@link Tickets#earlierOf}); null when retired (take the name's queue again).
     */
    synchronized @Nullable Admission admit(Ticket ticket, boolean direct) {
        if (retired) {
            return null;
        }
        boolean holds = holds(ticket.owner);
        CompletableFuture<Void> earlier = tickets.earlierOf(ticket.owner, holds);
        return earlier == null ? enter(ticket, direct)
                : new Admission.AfterEarlier(earlier, !holds && tickets.unansweredOf(ticket.owner));
    }

    /** Whether {@code ticket} goes to Redis at once ({@code direct}: it must), as head, or queues; the caller {@link #run}s it. */
    synchronized Admission.Entry enter(Ticket ticket, boolean direct) {
        boolean holds = holds(ticket.owner);
        if (direct || ticket.oneShot() || holds) {
            ticket.fresh = !holds;
            tickets.runStarted(ticket);
            return Admission.Entry.RUN;
        }
        if (holder.noneOrInDoubt() && !tickets.headRunning() && tickets.noneQueued()) {
            becomeHead(ticket);
            return Admission.Entry.RUN_AS_HEAD;
        }
        tickets.queue(ticket);
        ticket.armTimeout(services.timer(), () -> giveUp(ticket));
        watchFor(ticket);
        wakeUps.update(tickets, retired);
        return Admission.Entry.QUEUED;
    }

    /** Runs {@code ticket}'s acquisition, as head or not (none when null); outside the monitor. */
    @Override
    public void run(@Nullable Ticket ticket, boolean head) {
        if (ticket != null) {
            runner.run(ticket, head);
        }
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

    @Override
    public void onAcquisitionEnded(Ticket ticket, boolean acquired, boolean head) {
        Ticket next;
        List<Ticket> reentries = List.of();
        synchronized (this) {
            tickets.ended(ticket, head);
            if (acquired) {
                // Redis put or found this owner's field: on an exclusive lock nobody else holds it
                if (!holder.is(ticket.owner)) {
                    budget.restart(); // a new chain of hand-offs
                }
                if (holder.confirm(ticket, queues.confirmed())) {
                    queues.holdStarted();
                }
                reentries = tickets.claimReentriesOf(ticket.owner);
            }
            next = nextHead();
        }
        runner.runReentries(reentries);
        run(next, true);
    }

    @Override
    public synchronized void giveUp(Ticket ticket) {
        tickets.remove(ticket);
        retireIfIdle();
    }

    /** Another client granted {@code owner}'s place {@code nonce} the lock ({@link GrantTurns}); false: retired. */
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
        boolean late;
        synchronized (this) {
            if (retired) {
                return false;
            }
            if (holder.is(owner) || tickets.acquiring(owner) || queues.outsideHolds(localKey, owner) != 0) {
                return true; // a claim (a multi lock's one call too) found the granted field first, or will: not lost
            }
            late = !holder.holdForPassOn(protocol, owner, queues.confirmed()); // another holds here
        }
        GrantTurns.passOn(protocol, owner, late, () -> queues.release(protocol, services, owner));
        return true;
    }

    /**
     * Releases one hold of {@code owner}: a hand-off to the first queued owner while the budget allows,
     * else a release on Redis, sent by {@link LocalRelease} outside the monitor; null: retired.
     */
    @Nullable CompletableFuture<ReleaseOutcome> release(LockProtocol protocol, long owner) {
        Ticket successor;
        Ticket next;
        long sentAt;
        synchronized (this) {
            if (retired) {
                return null;
            }
            releasesInFlight++;
            // an owner with more holds than this one keeps the lock: no hand-off
            successor = holder.is(owner) && holder.holds() <= 1 && !tickets.headRunning() && budget.allowsHandOff()
                    ? tickets.claimSuccessor() : null;
            next = successor == null ? GrantTurns.nextInLine(protocol, tickets.headRunning(), tickets.firstInLine()) : null;
            sentAt = queues.confirmations();
            if (releases == null) {
                releases = new LocalRelease(this, runner, services);
            }
        }
        return successor != null ? releases.handOff(protocol, owner, successor, sentAt)
                : releases.releaseOnRedis(protocol, owner, sentAt, next);
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
    public synchronized @Nullable Ticket onReleased(long owner, long sentAt) {
        holder.forgetIfConfirmedBefore(owner, sentAt);
        return nextHead();
    }

    @Override
    public synchronized void onHandOffHeldOn(long owner, Ticket successor) {
        if (holder.is(owner)) {
            holder.releasedOne();
        }
        tickets.putBackFirst(successor); // it takes the channels it needs again
        watchFor(successor);
    }

    @Override
    public synchronized List<Ticket> onHandedOver(Ticket successor) {
        holder.confirm(successor, queues.confirmed());
        List<Ticket> reentries = tickets.handedOver(successor);
        budget.handedOff();
        retireIfIdle();
        return reentries;
    }

    @Override
    public synchronized @Nullable Ticket onHandOffRefused(long owner, Ticket successor, long sentAt) {
        holder.forgetIfConfirmedBefore(owner, sentAt);
        if (tickets.headRunning()) {
            tickets.putBackFirst(successor);
            watchFor(successor);
            return null;
        }
        becomeHead(successor);
        return successor;
    }

    @Override
    public synchronized int heldBesides(long owner, @Nullable Ticket except) {
        int inView = releasesInFlight > 0 ? HeldBefore.NOT_YET
                : holder.heldBesides(owner, tickets.runsOf(owner, except) || queues.heldByFair(localKey, owner));
        return HeldBefore.sum(inView, queues.outsideHolds(localKey, owner)); // and those of multi locks' one calls
    }

    /** Whether {@code owner} holds as the holder, or through a fair lock on the hash: it re-enters. */
    private boolean holds(long owner) {
        return holder.is(owner) || queues.heldElsewhere(localKey, owner);
    }

    synchronized boolean holdsCounted(long owner) {
        return holder.is(owner) && holder.holds() > 0;
    }

    synchronized void onLeaseSetElsewhere(long owner, long leaseMillis) {
        if (holder.is(owner)) {
            holder.leaseSetElsewhere(leaseMillis);
        }
    }

    synchronized ConfirmedHolder.@Nullable SinceNote takeSinceDue(long minNanos) {
        return holder.takeSinceDue(minNanos);
    }

    synchronized boolean sinceDue() {
        return holder.sinceDue();
    }

    synchronized void sinceNotNoted(long owner) {
        holder.sinceNotNoted(owner);
    }

    /** The watchdog found {@code owner}'s lease lost: the next head, for the caller to {@link #run}. */
    synchronized @Nullable Ticket onLeaseLost(long owner) {
        return holder.is(owner) ? forgetHolder() : null;
    }

    /** This client's force unlock ran: a holder confirmed before {@code sentAt} holds no more. */
    synchronized @Nullable Ticket onForceUnlocked(long sentAt) {
        return holder.confirmedBy(sentAt) ? forgetHolder() : nextHead();
    }

    /** A force unlock sent at {@code sentAt} went unanswered: see {@link ConfirmedHolder#doubt}. */
    synchronized void onForceUnlockInDoubt(long sentAt) {
        holder.doubt(sentAt);
    }

    @Override
    public synchronized HolderCheck.@Nullable Due holderCheckDue() {
        return retired || tickets.noneQueued() || tickets.headRunning() || holder.noneOrInDoubt() ? null
                : new HolderCheck.Due(castToNonNull(holder.protocol()), holder.owner(), queues.confirmations());
    }

    @Override // a release in flight corrects the view itself, and may be handing the lock to a queued owner
    public synchronized @Nullable Ticket onHolderNotFound(long owner, long sentAt) {
        return !retired && releasesInFlight == 0 && holder.is(owner) && holder.confirmedBy(sentAt) ? forgetHolder() : null;
    }

    /** The holder's fixed lease may have run out ({@link ConfirmedHolder#leaseRanOut}): the next head. */
    private synchronized @Nullable Ticket onHolderLeaseDue() {
        return holder.leaseRanOut(services.watchdog()) && !retired ? forgetHolder() : null;
    }

    /** Redis says the holder holds nothing: the next head, for the caller to start. */
    private @Nullable Ticket forgetHolder() {
        holder.forget();
        return nextHead();
    }

    /** The lock may be free: the first queued owner asks Redis, unless a head already does. */
    void probe() {
        Ticket next = null;
        synchronized (this) {
            if (!tickets.headRunning() && !retired) {
                next = claimHead();
                retireIfIdle();
            }
        }
        run(next, true);
    }

    /** A poll for spin waiters fell due: see {@link QueueWakeUps}. */
    private void spinPollDue() {
        synchronized (this) {
            wakeUps.spinPollFired();
        }
        probe();
    }

    /** The first queued owner becomes head when nobody holds or acquires; for the caller to start. */
    private @Nullable Ticket nextHead() {
        Ticket next = holder.noneOrInDoubt() && !tickets.headRunning() ? claimHead() : null;
        retireIfIdle();
        return next;
    }

    private @Nullable Ticket claimHead() {
        Ticket next = tickets.claimFirst();
        if (next != null) {
            becomeHead(next);
        }
        return next;
    }

    private void becomeHead(Ticket ticket) {
        tickets.becomeHead(ticket);
        // a head whose owner holds already (a probe while it queued) re-enters: a claim would count its holds as one
        ticket.fresh = !holds(ticket.owner);
    }

    /** {@code ticket} queued: it takes the channels, and the first to queue behind a holder has it checked. */
    private void watchFor(Ticket ticket) {
        CompletableFuture<Void> subscribed = wakeUps.watchFor(ticket);
        if (subscribed != null && !tickets.headRunning()) {
            HolderCheck.afterSubscribed(subscribed, services.timer(), this);
        }
    }

    /** Fails every queued owner: the client is closing. */
    void close() {
        Ticket[] queued;
        synchronized (this) {
            queued = tickets.drainQueued();
            holder.cancelLeaseCheck();
            wakeUps.close();
        }
        for (Ticket ticket : queued) {
            ticket.fail(new IllegalStateException("the LockClient is closed"));
        }
    }

    /** After a change of state: updates the wake-ups, and keeps an idle queue in its idle slot. */
    private void retireIfIdle() {
        wakeUps.update(tickets, retired);
        if (idle() && !retired) {
            queues.keepIdle(this, services.timer()); // kept for the lock's next use: see LocalQueues
        }
    }

    /** An idle queue displaced from its idle slot retires: see {@link LocalQueues#keepIdle}. */
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

    private boolean idle() {
        return holder.none() && releasesInFlight == 0 && tickets.idle();
    }
}
