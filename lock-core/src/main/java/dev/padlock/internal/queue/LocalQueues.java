package dev.padlock.internal.queue;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.padlock.internal.acquire.AcquireContext;
import dev.padlock.internal.acquire.HeldBefore;
import dev.padlock.internal.acquire.LockAcquisition;
import dev.padlock.internal.acquire.PendingAcquire;
import dev.padlock.internal.base.WaitBudget;
import dev.padlock.internal.lease.LeaseMillis;
import dev.padlock.internal.protocol.ExclusiveLockProtocol;
import dev.padlock.internal.grant.GrantMessage;
import dev.padlock.internal.protocol.LockProtocol;
import dev.padlock.internal.protocol.LockProtocol.ReleaseOutcome;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

/**
 * The {@link LocalQueue}s of one client, one per exclusive lock name while the lock is held or
 * waited on by this client, whichever kind of lock object (plain, spin, fenced) or owner id uses
 * it. A queue that goes idle stays in the map in one of {@value #IDLE_SLOTS} idle slots, by its
 * name's hash, until another idle queue takes that slot: then it leaves the map. So the map is
 * bounded by the locks in use and a few idle ones, and a lock taken and released in a loop keeps
 * one queue rather than making one per acquisition.
 */
public final class LocalQueues {
    /** How many idle queues a client keeps at most; a power of two. */
    static final int IDLE_SLOTS = 16;

    private record Holder(String localKey, long owner) {
    }

    private final ConcurrentHashMap<String, LocalQueue> queues = new ConcurrentHashMap<>();
    /** The idle queues kept, direct-mapped by name: see {@link #keepIdle}. */
    private final AtomicReferenceArray<LocalQueue> idle = new AtomicReferenceArray<>(IDLE_SLOTS);
    /** Acquisitions Redis confirmed so far, in this client: see {@link #confirmations()}. */
    private final AtomicLong confirmations = new AtomicLong();
    /** Owners holding a lock through a fair lock object, by its local key: see {@link #onHeldElsewhere}. */
    private final Cache<Holder, Boolean> heldElsewhere = Caffeine.newBuilder().maximumSize(10_000).build();
    /** Holds taken round the views by multi locks' one calls: see {@link #batchCallStarted}. */
    private final OutsideHolds outside = new OutsideHolds();
    /** The last place nonce handed out: see {@link Ticket#nonce}. */
    private final AtomicLong nonces = new AtomicLong();
    /** Called when a queue gets a new holder: see {@link SinceNotes}. */
    private volatile Runnable holdStarted = () -> { };

    /**
     * Acquires through the lock's queue: see {@link LocalQueue}.
     *
     * @param direct whether the acquisition must reach Redis itself rather than queue or take a hand-off
     */
    public PendingAcquire acquire(LockProtocol protocol, AcquireContext services, boolean spin, long owner,
            long leaseMillis, long waitNanos, boolean direct) {
        Ticket ticket = new Ticket(protocol, spin, owner, leaseMillis,
                LeaseMillis.ttlMillis(leaseMillis, services.watchdog().leaseMillis()),
                WaitBudget.of(waitNanos, services.clock()), nonces.incrementAndGet());
        // an owner whose earlier claim is being given back goes to Redis itself, after the give-back:
        // a hand-off to it now could be taken back by it
        direct |= services.abandonments().pending(protocol, owner) != null;
        enter(ticket, protocol, services, direct);
        return ticket;
    }

    /**
     * Enters {@code ticket} into its lock's queue, or, while the same owner has acquisitions in it
     * that have not settled (and does not hold the lock), once they have: see
     * {@link LocalQueue#admit}. A ticket that waits so ends with {@code false} when its wait runs
     * out or it is cancelled first.
     */
    private void enter(Ticket ticket, LockProtocol protocol, AcquireContext services, boolean direct) {
        while (true) {
            LocalQueue queue = queue(protocol, services);
            Admission admission = queue.admit(ticket, direct);
            if (admission == null) {
                continue; // retired meanwhile: take the name's queue again
            }
            if (admission instanceof Admission.AfterEarlier after && ticket.oneShot() && after.earlierWaits()) {
                // one attempt has no wait to spend on the owner's turn: the owner's own earlier
                // acquisition waits for the lock, so it is not this owner's to take now
                ticket.giveUpBeforeEntry();
            } else if (admission instanceof Admission.AfterEarlier after) {
                after(after.earlier(), ticket, protocol, services, direct);
            } else if (admission != Admission.Entry.QUEUED) {
                queue.runner.run(ticket, admission == Admission.Entry.RUN_AS_HEAD);
            }
            return;
        }
    }

    private void after(CompletableFuture<Void> earlier, Ticket ticket, LockProtocol protocol, AcquireContext services,
            boolean direct) {
        AtomicBoolean decided = new AtomicBoolean();
        // ends it without Redis when its wait runs out, or its caller cancels, before its turn
        Runnable end = () -> {
            if (decided.compareAndSet(false, true)) {
                ticket.giveUpBeforeEntry();
            }
        };
        Timeout bound = ticket.oneShot() || ticket.remainingNanos() == LockAcquisition.FOREVER ? null
                : services.timer().newTimeout(t -> end.run(), ticket.remainingNanos(), TimeUnit.NANOSECONDS);
        ticket.result.whenComplete((acquired, failure) -> {
            end.run();
            if (bound != null) {
                bound.cancel(); // nothing of a cancelled wait stays on the timer
            }
        });
        earlier.whenComplete((ignored, failure) -> {
            if (decided.compareAndSet(false, true)) {
                if (bound != null) {
                    bound.cancel();
                }
                enter(ticket, protocol, services, direct);
            }
        });
    }

    /** Releases one hold of {@code owner}, handing the lock to a queued owner when it can. */
    public CompletableFuture<ReleaseOutcome> release(LockProtocol protocol, AcquireContext services, long owner) {
        while (true) {
            CompletableFuture<ReleaseOutcome> reply = queue(protocol, services).release(protocol, owner);
            if (reply != null) {
                return reply;
            }
        }
    }

    /** Where the client's {@code GrantRouter} sends the plain lock's grant messages: {@link #onGranted}. */
    public Consumer<GrantMessage> plainGrants(AcquireContext services) {
        return message -> onGranted(message, services);
    }

    /** A grant message of the plain lock on one of this client's grant channels (see {@code lock_release}). */
    public void onGranted(GrantMessage message, AcquireContext services) {
        onGranted(new ExclusiveLockProtocol(message.name(), services), message.owner(), message.nonce(), services);
    }

    /** A grant of {@code protocol}'s lock to {@code owner}, answering its place with {@code nonce}. */
    public void onGranted(LockProtocol protocol, long owner, long nonce, AcquireContext services) {
        while (!queue(protocol, services).onGranted(protocol, owner, nonce)) {
            // retired meanwhile: take the name's queue again
        }
    }

    /**
     * {@code owner} took a hold of the lock known as {@code localKey} through a kind that does not
     * go through the local view but shares its hash (a fair lock): its acquisitions through the
     * local view re-enter rather than claim, until it releases its last hold.
     */
    public void onHeldElsewhere(String localKey, long owner) {
        heldElsewhere.put(new Holder(localKey, owner), Boolean.TRUE);
    }

    /**
     * As {@link #onHeldElsewhere(String, long)}, and Redis set the lock's lease to {@code leaseMillis}
     * (fixed, or {@link LeaseMillis#WATCHDOG}) in that same call (a fair acquisition or re-entry
     * re-arms the hash it shares with the plain lock): when the owner holds through this client's
     * view with a fixed lease, the view watches the new one, so that a shorter lease does not leave
     * queued owners behind a holder Redis dropped.
     */
    public void onHeldElsewhere(String localKey, long owner, long leaseMillis) {
        onHeldElsewhere(localKey, owner);
        LocalQueue queue = queues.get(localKey);
        if (queue != null && !LeaseMillis.isWatchdog(leaseMillis)) {
            queue.onLeaseSetElsewhere(owner, leaseMillis);
        }
    }

    /**
     * Whether {@code owner} holds the lock known as {@code localKey} as this client counts it: as
     * its local view's holder with holds confirmed, through a fair lock on the same hash, or round
     * the view by a multi lock's one call.
     */
    public boolean counts(String localKey, long owner) {
        LocalQueue queue = queues.get(localKey);
        return (queue != null && queue.holdsCounted(owner)) || heldElsewhere(localKey, owner);
    }

    /**
     * Whether no owner of this client holds (as the local view's holder), acquires, releases or
     * waits for the lock known as {@code localKey} through its local view: what a multi lock's
     * one-call acquisition and release need, which go round the view (see
     * {@link #onHeldElsewhere(String, long, long)}).
     */
    public boolean idle(String localKey) {
        LocalQueue queue = queues.get(localKey);
        return queue == null || !queue.inUse();
    }

    /**
     * A multi lock's one call that may add or drop a hold of {@code owner} on the lock known as
     * {@code localKey}, round its view, is sent: until {@link #batchCallEnded} the owner's holds
     * there cannot be told ({@link HeldBefore#NOT_YET}), and its acquisitions through the view re-enter.
     */
    public void batchCallStarted(String localKey, long owner) {
        outside.callStarted(localKey, owner);
    }

    /**
     * The call answered, or failed: {@code holds} more (or fewer) holds of {@code owner} taken round
     * the view, as its caller counts them. While the owner has such holds, its acquisitions through
     * the view re-enter rather than claim, and give-backs count them.
     */
    public void batchCallEnded(String localKey, long owner, int holds) {
        outside.callEnded(localKey, owner, holds);
    }

    /**
     * As {@link #batchCallEnded} with one more hold, which Redis gave the lease {@code leaseMillis}
     * (fixed, or {@link LeaseMillis#WATCHDOG}): see {@link #onHeldElsewhere(String, long, long)}.
     */
    public void onBatchHeld(String localKey, long owner, long leaseMillis) {
        outside.callEnded(localKey, owner, 1);
        LocalQueue queue = queues.get(localKey);
        if (queue != null && !LeaseMillis.isWatchdog(leaseMillis)) {
            queue.onLeaseSetElsewhere(owner, leaseMillis);
        }
    }

    /**
     * How many holds {@code owner} has of the multi lock of the locks known as {@code localKeys} (in
     * its order), all taken by one call: counted per client, so that any multi lock object of the same
     * locks re-enters and releases them.
     */
    public int multiHolds(List<String> localKeys, long owner) {
        return outside.multiHolds(localKeys, owner);
    }

    /** {@code holds} more (or, when negative, fewer) holds of that multi lock: see {@link #multiHolds}. */
    public void onMultiHeld(List<String> localKeys, long owner, int holds) {
        outside.multiHeld(localKeys, owner, holds);
    }

    /** How many holds taken round the view this client counts for {@code owner}; not yet while a call is in flight. */
    public int batchHolds(String localKey, long owner) {
        return outside.count(localKey, owner);
    }

    /**
     * Every hold {@code owner} has of the lock known as {@code localKey} as this client counts them,
     * through its view and round it: what a give-back of a call in doubt compares Redis's count with
     * ({@link HeldBefore}).
     */
    public int heldBesides(String localKey, long owner) {
        LocalQueue queue = queues.get(localKey);
        return queue == null ? HeldBefore.sum(heldElsewhere(localKey, owner) ? HeldBefore.UNKNOWN : 0,
                outside.count(localKey, owner)) : queue.heldBesides(owner, null);
    }

    /** Holds of {@code owner} taken round the view by multi locks' one calls, {@link HeldBefore#NOT_YET} while one is in flight. */
    int outsideHolds(String localKey, long owner) {
        return outside.count(localKey, owner);
    }

    /** Whether {@code owner} holds the lock through a fair lock object, whose holds this client does not count. */
    boolean heldByFair(String localKey, long owner) {
        return heldElsewhere.estimatedSize() > 0 && heldElsewhere.getIfPresent(new Holder(localKey, owner)) != null;
    }

    /** See {@link #onHeldElsewhere}. */
    boolean heldElsewhere(String localKey, long owner) {
        return heldByFair(localKey, owner) || outside.any(localKey, owner);
    }

    /**
     * {@code owner} released its last hold of the lock known as {@code localKey}, or found it not
     * held, through a kind that does not go through the local view: it holds nothing.
     */
    public void onReleasedElsewhere(String localKey, long owner) {
        heldElsewhere.invalidate(new Holder(localKey, owner));
        onLeaseLost(localKey, owner);
    }

    /**
     * The watchdog found {@code owner}'s lease of the lock known as {@code localKey} lost (or a
     * release found its field gone): the view forgets it as holder, and none of its holds taken
     * round the view by a multi lock's one call is counted any more.
     */
    public void onLeaseLost(String localKey, long owner) {
        outside.forget(localKey, owner);
        LocalQueue queue = queues.get(localKey);
        if (queue != null) {
            queue.run(queue.onLeaseLost(owner), true); // the next head, outside the queue's monitor
        }
    }

    /**
     * This client force-unlocked the lock known as {@code localKey}, with a call sent when
     * {@link #confirmations()} was {@code sentAt}.
     */
    public void onForceUnlocked(String localKey, long sentAt) {
        LocalQueue queue = queues.get(localKey);
        if (queue != null) {
            queue.run(queue.onForceUnlocked(sentAt), true); // the next head, outside the queue's monitor
        }
    }

    /**
     * This client's force unlock of the lock known as {@code localKey}, sent when
     * {@link #confirmations()} was {@code sentAt}, got no answer: see {@link LocalQueue#onForceUnlockInDoubt}.
     */
    public void onForceUnlockInDoubt(String localKey, long sentAt) {
        LocalQueue queue = queues.get(localKey);
        if (queue != null) {
            queue.onForceUnlockInDoubt(sentAt);
            queue.probe(); // queued owners ask Redis
        }
    }

    /**
     * How many acquisitions Redis has confirmed in this client so far: a sequence that tells a
     * reply to a call sent before a holder was confirmed from one sent after.
     */
    public long confirmations() {
        return confirmations.get();
    }

    /** Counts one more confirmed acquisition; its place in the sequence. */
    long confirmed() {
        return confirmations.incrementAndGet();
    }

    /** Runs {@code listener} whenever a queue gets a new holder (on the thread that confirmed it). */
    void onHoldStarted(Runnable listener) {
        holdStarted = listener;
    }

    /** A queue got a new holder. */
    void holdStarted() {
        holdStarted.run();
    }

    /**
     * Sends the since notes due: holders of at least {@code minNanos} whose since is not noted
     * (see {@link SinceNotes}); returns whether notes remain due, for a later round. A note that
     * fails is due again.
     */
    boolean noteSinces(long minNanos) {
        boolean more = false;
        for (LocalQueue queue : queues.values()) {
            ConfirmedHolder.SinceNote note = queue.takeSinceDue(minNanos);
            if (note == null) {
                more |= queue.sinceDue();
                continue;
            }
            CompletableFuture<Boolean> sent;
            try {
                sent = QueuedPath.handOffOf(note.protocol()).noteSince(note.owner(),
                        TimeUnit.NANOSECONDS.toMillis(note.heldForNanos()));
            } catch (RuntimeException e) {
                sent = CompletableFuture.failedFuture(e);
            }
            sent.whenComplete((written, failure) -> {
                if (failure != null) {
                    queue.sinceNotNoted(note.owner());
                    holdStarted();
                }
            });
        }
        return more;
    }

    /** Every queue's state, for diagnostics. */
    public String describe() {
        return queues.values().toString();
    }

    /** Queues in use now (idle ones kept for their next use are not); for tests and metrics. */
    public int size() {
        int inUse = 0;
        for (LocalQueue queue : queues.values()) {
            if (queue.inUse()) {
                inUse++;
            }
        }
        return inUse;
    }

    /** Queues in the map, the idle ones kept included; for tests. */
    int mapped() {
        return queues.size();
    }

    /** Fails every queued owner. */
    public void close() {
        queues.values().forEach(LocalQueue::close);
    }

    void remove(LocalQueue queue) {
        queues.remove(queue.localKey(), queue);
    }

    /**
     * {@code queue} went idle (under its monitor): it takes its idle slot, and the idle queue it
     * displaces from there retires on {@code timer}'s thread, since its monitor may not be taken
     * under this one's. A queue displaced while in use is not retired; it takes its slot back when
     * it goes idle again.
     */
    void keepIdle(LocalQueue queue, Timer timer) {
        LocalQueue displaced = idle.getAndSet(slot(queue), queue);
        if (displaced == null || displaced == queue) {
            return;
        }
        try {
            timer.newTimeout(timeout -> displaced.retireIfDisplaced(), 0, TimeUnit.NANOSECONDS);
        } catch (IllegalStateException stopped) {
            // the client is closing: its queues go with it
        }
    }

    /** Whether {@code queue} holds its idle slot. */
    boolean keeps(LocalQueue queue) {
        return idle.get(slot(queue)) == queue;
    }

    private static int slot(LocalQueue queue) {
        return queue.localKey().hashCode() & (IDLE_SLOTS - 1);
    }

    private LocalQueue queue(LockProtocol protocol, AcquireContext services) {
        LocalQueue queue = queues.get(protocol.localKey()); // mostly there: no lambda to make
        return queue != null ? queue
                : queues.computeIfAbsent(protocol.localKey(), key -> new LocalQueue(key, services, this));
    }
}
