package dev.padlock.internal.queue;

import static dev.padlock.internal.base.Nulls.castToNonNull;

import dev.padlock.internal.acquire.Abandonments;
import dev.padlock.internal.acquire.LockAcquisition;
import dev.padlock.internal.acquire.PendingAcquire;
import dev.padlock.internal.base.WaitBudget;
import dev.padlock.internal.lease.LeaseMillis;
import dev.padlock.internal.protocol.LockProtocol;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition through a {@link LocalQueue}, as its caller sees it: the futures it waits on, and
 * what it asked for. While queued it goes {@code WAITING -> CLAIMED} (the queue starts it, or hands
 * it the lock) or {@code WAITING -> GAVE_UP} (its wait ran out, it was cancelled, or the client
 * closed); a hand-off that did not happen puts it back to {@code WAITING}.
 */
final class Ticket implements PendingAcquire {
    private static final int WAITING = 0;
    private static final int CLAIMED = 1;
    private static final int GAVE_UP = 2;

    final LockProtocol protocol;
    final boolean spin;
    final long owner;
    /** The lease asked for: fixed, or {@link LeaseMillis#WATCHDOG}. */
    final long leaseMillis;
    /** The TTL it sets on Redis: the watchdog timeout for the watchdog's lease. */
    final long ttlMillis;
    private final WaitBudget budget;
    private final boolean forever;
    private final boolean oneShot;
    final CompletableFuture<Boolean> result = new Result();
    /**
     * Set as the ticket's first call may go out: a cancel from then on makes the owner's next
     * acquisition of the lock wait until this one has settled ({@link Abandonments#awaitSettle}).
     */
    volatile @Nullable Abandonments sentWith;
    /** Made when first asked for ({@link #settled()}); {@link #SETTLED} when it settled before that. */
    private volatile @Nullable CompletableFuture<Void> settled;
    private static final CompletableFuture<Void> SETTLED = CompletableFuture.completedFuture(null);
    private static final AtomicReferenceFieldUpdater<Ticket, CompletableFuture> SETTLED_FUTURE =
            AtomicReferenceFieldUpdater.newUpdater(Ticket.class, CompletableFuture.class, "settled");
    /** An updater rather than an {@code AtomicInteger}: one object less per acquisition. */
    private static final AtomicIntegerFieldUpdater<Ticket> STATE =
            AtomicIntegerFieldUpdater.newUpdater(Ticket.class, "state");

    /** {@code WAITING}, {@code CLAIMED} or {@code GAVE_UP}; changed through {@link #STATE}. */
    private volatile int state = WAITING;
    /** The fencing token, once acquired by a kind that has one; written before {@link #result} completes. */
    volatile long token = LockProtocol.Attempt.NO_TOKEN;
    /** Whether the owner held none of the lock when it entered the queue (not a re-entry); set by the queue. */
    volatile boolean fresh = true;
    /** Whether the lock came by a local hand-off; written before {@link #result} completes. */
    volatile boolean handedOver;
    /** The acquisition against Redis that runs for this ticket, once the queue started one. */
    volatile @Nullable PendingAcquire running;
    /** Identifies this ticket's place in line on Redis, and the grant that answers it. */
    final long nonce;
    /**
     * When the release that put this client back in line for this ticket was sent ({@link #requeued}):
     * a grant to that place was written no earlier. Written before {@link #requeued}.
     */
    long requeuedSentNanos;
    /** Whether a release put this client back in line for this ticket (it leaves the line once it holds). */
    volatile boolean requeued;
    /** A grant that came before the queue started this ticket's acquisition; under the queue's monitor. */
    boolean grantedEarly;
    /** The queued wait's timeout; set once under the queue's monitor. */
    private volatile @Nullable Timeout timeout;

    /**
     * @param budget the wait, from when the acquisition started
     */
    Ticket(LockProtocol protocol, boolean spin, long owner, long leaseMillis, long ttlMillis, WaitBudget budget,
            long nonce) {
        this.protocol = protocol;
        this.nonce = nonce;
        this.spin = spin;
        this.owner = owner;
        this.leaseMillis = leaseMillis;
        this.ttlMillis = ttlMillis;
        this.budget = budget;
        this.oneShot = budget.oneAttempt();
        this.forever = budget.forever();
    }

    @Override
    public CompletableFuture<Boolean> result() {
        return result;
    }

    /** The caller's result; see {@link #sentWith}. */
    private final class Result extends CompletableFuture<Boolean> {
        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean cancelled = super.cancel(mayInterruptIfRunning);
            Abandonments sent = sentWith;
            if (cancelled && sent != null) {
                sent.awaitSettle(protocol, owner, settled());
            }
            return cancelled;
        }
    }

    /** Made on demand: most acquisitions settle with nobody asking. */
    @Override
    public CompletableFuture<Void> settled() {
        CompletableFuture<Void> future = settled;
        if (future == null) {
            SETTLED_FUTURE.compareAndSet(this, null, new CompletableFuture<Void>());
            future = castToNonNull(settled); // set by now, by this CAS or another
        }
        return future;
    }

    /** The acquisition stopped and gave back whatever it had: {@link #settled()} completes. */
    void settle() {
        if (settled == null && SETTLED_FUTURE.compareAndSet(this, null, SETTLED)) {
            return;
        }
        castToNonNull(settled).complete(null);
    }

    @Override
    public long token() {
        return token;
    }

    @Override
    public boolean handedOver() {
        return handedOver;
    }

    @Override
    public @Nullable Throwable lastUnanswered() {
        PendingAcquire acquisition = running;
        return acquisition == null ? null : acquisition.lastUnanswered();
    }

    boolean oneShot() {
        return oneShot;
    }

    /**
     * Arms a queued ticket: at the end of its wait, or when its caller cancels, it leaves the queue
     * through {@code leave} unless the queue has claimed it meanwhile. The timeout is cancelled once
     * the result is settled.
     */
    void armTimeout(Timer timer, Runnable leave) {
        result.whenComplete((acquired, failure) -> {
            Timeout armed = timeout;
            if (armed != null) {
                armed.cancel();
            }
            if (STATE.compareAndSet(this, WAITING, GAVE_UP)) {
                leave.run();
                settle();
            }
        });
        if (!forever) {
            timeout = timer.newTimeout(t -> {
                if (STATE.compareAndSet(this, WAITING, GAVE_UP)) {
                    leave.run();
                    result.complete(false);
                    settle();
                }
            }, remainingNanos(), TimeUnit.NANOSECONDS);
            if (result.isDone()) {
                timeout.cancel();
            }
        }
    }

    boolean claim() {
        return STATE.compareAndSet(this, WAITING, CLAIMED);
    }

    /**
     * Back in the queue after a hand-off that did not happen; gives up if its wait is over or its
     * caller cancelled meanwhile. A ticket that gives up is not told yet: the caller first starts
     * giving back what the hand-off may have left, then tells it with {@link #endGivenUp}, so that
     * the owner's next acquisition, which may start as soon as it is told, waits for that give-back.
     *
     * @return whether it still waits (else the queue must drop it, and end it)
     */
    boolean unclaim() {
        state = WAITING;
        return !((result.isDone() || (!forever && remainingNanos() == 0)) && STATE.compareAndSet(this, WAITING, GAVE_UP));
    }

    /** Tells the caller of a ticket that gave up in {@link #unclaim} that it did not acquire, and settles it. */
    void endGivenUp() {
        result.complete(false);
        settle();
    }

    long remainingNanos() {
        return budget.remainingNanos();
    }

    /**
     * Ends a ticket that has not entered its queue yet (see {@link LocalQueues}): {@code false},
     * unless its caller already settled the result (a cancel).
     */
    void giveUpBeforeEntry() {
        if (STATE.compareAndSet(this, WAITING, GAVE_UP)) {
            result.complete(false);
            settle();
        }
    }

    void fail(Throwable failure) {
        if (STATE.compareAndSet(this, WAITING, GAVE_UP)) {
            result.completeExceptionally(failure);
            settle();
        }
    }
}
