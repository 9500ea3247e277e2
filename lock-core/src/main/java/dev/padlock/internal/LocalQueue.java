package dev.padlock.internal;

import dev.padlock.internal.LockProtocol.Release;
import dev.padlock.internal.LockProtocol.ReleaseOutcome;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The owners of one client that want one lock: a cohort in which at most one talks to Redis.
 *
 * <h2>Implementation notes</h2>
 * Redisson-style waiting makes every thread of a JVM race the others through Redis, and an unlock
 * wakes threads that mostly lose to the thread that just unlocked. Here, owners of one client
 * queue locally instead:
 * <ul>
 *   <li>When nobody of this client holds or is acquiring the lock, the caller becomes the
 *       <em>head</em>: it runs the {@link LockAcquisition} loop against Redis.</li>
 *   <li>While this client holds the lock, or a head is acquiring it, other owners wait in a FIFO
 *       queue and send nothing to Redis.</li>
 *   <li>The holder's last unlock, with an owner queued, hands the lock over in one
 *       {@code lock_handoff} call that replaces the holder's field with the successor's and
 *       publishes nothing. The successor starts as soon as that call is sent, when the holder's
 *       lease cannot end before it lands (a watchdog lease, or a fixed one with time to spare):
 *       commands on one connection run in order, so whatever the successor sends next runs after
 *       the hand-off.</li>
 *   <li>After {@value #MAX_LOCAL_HAND_OFFS} hand-offs in a row, or {@link #MAX_LOCAL_CHAIN_NANOS}
 *       of them, the unlock is global instead (delete and publish), so waiters of other clients
 *       get their chance; the next local owner then becomes head and competes like them. When
 *       the unlock message reached waiters of other clients (the release script reports how
 *       many subscribers it reached), that owner first yields about two round trips, so the waiter
 *       it woke elsewhere is not beaten by a local owner that needs no pub/sub message.</li>
 * </ul>
 * Redis stays the arbiter: what this class knows (the holder, its hold count, its lease) only
 * decides who of this client may talk to Redis next. When that knowledge is stale (the holder's
 * fixed lease ended, the watchdog found the lease lost, an unlock found the lock gone), the holder
 * is forgotten and the first queued owner becomes head, so a queue never waits longer than the
 * holder's lease.
 *
 * <p>All state is guarded by this object's monitor. Work that talks to Redis or completes a
 * caller's future is done outside the monitor. An idle queue (no holder, no head, nobody queued)
 * is retired and leaves {@link LocalQueues}' map under the monitor; a retired queue is never used
 * again, as with {@link WakeUpRegistry}'s channels.
 */
final class LocalQueue {
    private static final Logger log = LoggerFactory.getLogger(LocalQueue.class);

    static final long NONE = Long.MIN_VALUE;
    static final int MAX_LOCAL_HAND_OFFS = 32;
    static final long MAX_LOCAL_CHAIN_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final long MIN_YIELD_NANOS = TimeUnit.MICROSECONDS.toNanos(200);
    private static final long MAX_YIELD_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private final LockProtocol protocol;
    private final LockServices services;
    private final LocalQueues queues;
    private final boolean spin;

    // guarded by this:
    private final ArrayDeque<LocalWaiter> waiters = new ArrayDeque<>();
    private long holder = NONE;
    private int holderHolds;
    /** {@link System#nanoTime()} when the holder's fixed lease ends; 0 for a watchdog lease. */
    private long holderLeaseEnd;
    /** Changes with every holder, so a late lease check knows it is out of date. */
    private long holderGeneration;
    private boolean headRunning;
    private int handOffs;
    private long chainStart;
    boolean retired;

    /** @param spin whether the head waits by back-off (the spin lock) rather than on pub/sub */
    LocalQueue(LockProtocol protocol, LockServices services, LocalQueues queues, boolean spin) {
        this.protocol = protocol;
        this.services = services;
        this.queues = queues;
        this.spin = spin;
    }

    String localKey() {
        return protocol.localKey();
    }

    boolean spins() {
        return spin;
    }

    /** Starts an acquisition for {@code threadId}; called under this monitor by {@link LocalQueues}. */
    PendingAcquire acquire(long threadId, long leaseMillis, boolean watchdogLease, long waitNanos) {
        // a holder whose fixed lease is over is forgotten by checkHolderLease, which also promotes
        // the queue; until it runs, only a one-shot attempt asks Redis past it
        boolean holderStale = holder != NONE && holderLeaseEnd != 0 && System.nanoTime() - holderLeaseEnd >= 0;
        boolean idle = holder == NONE && !headRunning && waiters.isEmpty();
        if (holder == threadId || idle || (waitNanos <= 0 && (holder == NONE || holderStale))) {
            // a re-entry; the head; or a one-shot attempt, which may barge past a head still acquiring
            boolean head = idle;
            headRunning |= head;
            LockAcquisition acquisition = start(threadId, leaseMillis, watchdogLease, waitNanos);
            acquisition.result().whenComplete((acquired, failure) -> onAcquired(threadId, leaseMillis, watchdogLease,
                    Boolean.TRUE.equals(acquired) && !acquisition.result().isCancelled(), head));
            return acquisition;
        }
        if (waitNanos <= 0) {
            return LocalWaiter.notAcquired(); // held by another owner of this client
        }
        LocalWaiter waiter = new LocalWaiter(threadId, leaseMillis, watchdogLease, waitNanos);
        waiters.add(waiter);
        watchHolderLease();
        waiter.onGiveUp(() -> giveUp(waiter));
        return waiter;
    }

    private LockAcquisition start(long threadId, long leaseMillis, boolean watchdogLease, long waitNanos) {
        return LockAcquisition.start(protocol, services.wakeUps(), services.watchdog(), leaseMillis, watchdogLease,
                threadId, waitNanos, services.commandTimeoutMillis(), spin);
    }

    /** An acquisition against Redis ended; {@code head} tells whether it was this queue's head. */
    private void onAcquired(long threadId, long leaseMillis, boolean watchdogLease, boolean acquired, boolean head) {
        LocalWaiter next;
        synchronized (this) {
            if (head) {
                headRunning = false;
            }
            if (acquired) {
                if (holder == threadId) {
                    holderHolds++;
                    if (holderLeaseEnd != 0) {
                        reArmHolderLease(leaseMillis, watchdogLease); // a re-entry sets the lease again
                    }
                } else {
                    becomeHolder(threadId, leaseMillis, watchdogLease);
                    handOffs = 0;
                    chainStart = System.nanoTime();
                    watchHolderLease();
                }
            }
            next = promoteIfFree();
            retireIfIdle();
        }
        startHead(next);
    }

    /**
     * Releases one hold of {@code threadId}: hands the lock to the first queued owner when this is
     * the last hold and the local budget allows, else releases it on Redis.
     */
    CompletableFuture<ReleaseOutcome> release(long threadId) {
        LocalWaiter successor = null;
        boolean early = false;
        synchronized (this) {
            if (holder == threadId && holderHolds == 1 && !headRunning && withinBudget()) {
                successor = claimFirst();
                early = holderLeaseEnd == 0 || holderLeaseEnd - System.nanoTime() > earlyHandOffMarginNanos();
            }
        }
        return successor != null ? handOff(threadId, successor, early) : releaseOnRedis(threadId);
    }

    /**
     * How much of a fixed lease must be left for the successor to start before Redis confirms the
     * hand-off: the hand-off must land well before the lease could end.
     */
    private long earlyHandOffMarginNanos() {
        return Math.max(TimeUnit.SECONDS.toNanos(1), TimeUnit.MILLISECONDS.toNanos(2 * services.commandTimeoutMillis()));
    }

    private CompletableFuture<ReleaseOutcome> releaseOnRedis(long threadId) {
        boolean renewed = services.watchdog().beforeRelease(protocol, threadId);
        long rearm = renewed ? services.watchdog().leaseMillis() : 0;
        long sent = System.nanoTime();
        return protocol.release(threadId, rearm).thenApply(release -> {
            afterRelease(threadId, release.outcome(), yieldAfter(release, System.nanoTime() - sent));
            return release.outcome();
        }).whenComplete((outcome, failure) -> {
            if (failure != null) {
                afterRelease(threadId, null, 0);
            }
        });
    }

    /**
     * How long the next local owner waits before it asks Redis, after a global release: when the
     * unlock message reached waiters of other clients, about two round trips, so that the one it
     * woke gets its chance before this client takes the lock again; otherwise no time at all.
     */
    private long yieldAfter(Release release, long roundTripNanos) {
        long others = release.listeners() - (services.wakeUps().isSubscribed(protocol.unlockChannel(NONE)) ? 1 : 0);
        if (others <= 0) {
            return 0;
        }
        return Math.min(MAX_YIELD_NANOS, Math.max(MIN_YIELD_NANOS, 2 * roundTripNanos));
    }

    /** Bookkeeping after a release on Redis; {@code outcome} is null when it failed. */
    private void afterRelease(long threadId, ReleaseOutcome outcome, long yieldNanos) {
        if (outcome == ReleaseOutcome.STILL_HELD) {
            synchronized (this) {
                if (holder == threadId) {
                    holderHolds--;
                }
            }
            return;
        }
        services.watchdog().forget(protocol, threadId);
        LocalWaiter next;
        synchronized (this) {
            if (holder == threadId) {
                forgetHolder(); // released, not held, or unknown after a failure: Redis decides
            }
            next = promoteIfFree();
            retireIfIdle();
        }
        if (next != null && yieldNanos > 0) {
            later(yieldNanos, () -> startHead(next));
        } else {
            startHead(next);
        }
    }


    /**
     * Hands the lock from {@code threadId} to {@code successor}. With {@code early}, the successor
     * starts as soon as the script is sent: every command it sends later runs after the hand-off on
     * the same connection, and the holder's lease cannot end before the hand-off lands. The holder
     * still waits for the reply, so its unlock reports what Redis found.
     */
    private CompletableFuture<ReleaseOutcome> handOff(long threadId, LocalWaiter successor, boolean early) {
        services.watchdog().beforeRelease(protocol, threadId);
        CompletableFuture<ReleaseOutcome> reply = protocol.handOff(threadId, successor.threadId, successor.leaseMillis, 0);
        if (early) {
            handedOver(threadId, successor);
            return reply.whenComplete((outcome, failure) -> {
                if (outcome != ReleaseOutcome.RELEASED) {
                    earlyHandOffFailed(successor.threadId, outcome, failure);
                }
            });
        }
        return reply.whenComplete((outcome, failure) -> {
                    if (outcome == ReleaseOutcome.RELEASED) {
                        handedOver(threadId, successor);
                    } else if (outcome == ReleaseOutcome.STILL_HELD) {
                        synchronized (this) {
                            waiters.addFirst(successor);
                        }
                        successor.unclaim();
                    } else {
                        // not held any more, or unknown after a failure: the successor asks Redis
                        services.watchdog().forget(protocol, threadId);
                        LocalWaiter head = successor;
                        synchronized (this) {
                            if (holder == threadId) {
                                forgetHolder();
                            }
                            if (headRunning) {
                                waiters.addFirst(successor);
                                head = null;
                            } else {
                                headRunning = true;
                            }
                        }
                        if (head == null) {
                            successor.unclaim();
                        }
                        startHead(head);
                    }
                });
    }

    private void handedOver(long previous, LocalWaiter successor) {
        services.watchdog().forget(protocol, previous);
        services.watchdog().onAcquired(protocol, successor.threadId, successor.watchdogLease);
        synchronized (this) {
            becomeHolder(successor.threadId, successor.leaseMillis, successor.watchdogLease);
            handOffs++;
            watchHolderLease();
        }
        if (!successor.result.complete(true)) {
            // the successor gave up while the lock was on its way: pass it on for it
            release(successor.threadId).whenComplete((outcome, failure) -> {
                if (failure != null) {
                    log.warn("could not pass on lock '{}' after its local successor gave up; its lease will expire: {}",
                            protocol.name(), failure.toString());
                }
            });
        }
        successor.settled.complete(null);
    }

    /**
     * Redis did not confirm an early hand-off (the holder had lost the lock, or the call failed):
     * the successor holds nothing, like a holder whose lease ran out. Its unlock will say so, and
     * a watchdog lease is reported lost; the local queue forgets it and asks Redis again.
     */
    private void earlyHandOffFailed(long successorThreadId, ReleaseOutcome outcome, Throwable failure) {
        log.warn("lock '{}' was handed to {} before Redis confirmed it, and Redis {}: that owner does not hold it",
                protocol.name(), LockKeys.ownerField(services.clientId(), successorThreadId),
                failure != null ? "failed: " + failure : "found it " + outcome);
        LocalWaiter next;
        synchronized (this) {
            if (holder == successorThreadId) {
                forgetHolder();
            }
            next = promoteIfFree();
            retireIfIdle();
        }
        startHead(next);
    }

    /** The watchdog found {@code threadId}'s lease lost: forget it, and let Redis decide again. */
    void onLeaseLost(long threadId) {
        LocalWaiter next;
        synchronized (this) {
            if (holder != threadId) {
                return;
            }
            forgetHolder();
            next = promoteIfFree();
            retireIfIdle();
        }
        startHead(next);
    }

    /** Fails every queued owner: the client is closing. */
    void close() {
        LocalWaiter[] queued;
        synchronized (this) {
            queued = waiters.toArray(new LocalWaiter[0]);
            waiters.clear();
        }
        for (LocalWaiter waiter : queued) {
            waiter.fail(new IllegalStateException("the LockClient is closed"));
        }
    }

    private void giveUp(LocalWaiter waiter) {
        synchronized (this) {
            waiters.remove(waiter);
            retireIfIdle();
        }
    }

    /**
     * Schedules a check at the end of the holder's fixed lease when owners queue behind it, so
     * they do not wait past it if the holder never unlocks; under the monitor (scheduling does not
     * block).
     */
    private void watchHolderLease() {
        if (holder == NONE || holderLeaseEnd == 0 || waiters.isEmpty()) {
            return;
        }
        long generation = holderGeneration;
        long delayNanos = Math.max(0, holderLeaseEnd - System.nanoTime()) + TimeUnit.MILLISECONDS.toNanos(1);
        later(delayNanos, () -> checkHolderLease(generation));
    }

    private void checkHolderLease(long generation) {
        LocalWaiter next;
        synchronized (this) {
            if (generation != holderGeneration || holder == NONE || System.nanoTime() - holderLeaseEnd < 0) {
                return;
            }
            forgetHolder();
            next = promoteIfFree();
            retireIfIdle();
        }
        startHead(next);
    }

    /**
     * Runs {@code task} after {@code nanos} on the JDK's delay thread itself, not on the common
     * pool: an application that blocks common-pool threads must not delay Padlock's timeouts.
     * The tasks are short and never block.
     */
    static void later(long nanos, Runnable task) {
        CompletableFuture.delayedExecutor(nanos, TimeUnit.NANOSECONDS, Runnable::run).execute(task);
    }

    /** Makes the first queued owner head when nobody holds or acquires; under the monitor. */
    private LocalWaiter promoteIfFree() {
        if (holder != NONE || headRunning) {
            return null;
        }
        LocalWaiter next = claimFirst();
        headRunning = next != null;
        return next;
    }

    /**
     * Starts the Redis loop for a promoted owner; outside the monitor. One callback does the
     * bookkeeping and then completes the owner's future; when that future was cancelled meanwhile,
     * the lock it got is given back.
     */
    private void startHead(LocalWaiter waiter) {
        if (waiter == null) {
            return;
        }
        LockAcquisition acquisition = start(waiter.threadId, waiter.leaseMillis, waiter.watchdogLease,
                waiter.remainingNanos());
        waiter.result.whenComplete((acquired, failure) -> {
            if (waiter.result.isCancelled()) {
                acquisition.result().cancel(false);
            }
        });
        acquisition.result().whenComplete((acquired, failure) -> {
            boolean got = Boolean.TRUE.equals(acquired) && !acquisition.result().isCancelled();
            onAcquired(waiter.threadId, waiter.leaseMillis, waiter.watchdogLease, got, true);
            boolean delivered = failure != null
                    ? waiter.result.completeExceptionally(RedisErrors.unwrap(failure))
                    : waiter.result.complete(got);
            if (got && !delivered) {
                release(waiter.threadId);
            }
        });
        acquisition.settled().whenComplete((ignored, failure) -> waiter.settled.complete(null));
    }

    private LocalWaiter claimFirst() {
        for (Iterator<LocalWaiter> it = waiters.iterator(); it.hasNext(); ) {
            LocalWaiter waiter = it.next();
            it.remove();
            if (waiter.claim()) {
                return waiter;
            }
        }
        return null;
    }

    private boolean withinBudget() {
        return handOffs < MAX_LOCAL_HAND_OFFS && System.nanoTime() - chainStart < MAX_LOCAL_CHAIN_NANOS;
    }

    private void becomeHolder(long threadId, long leaseMillis, boolean watchdogLease) {
        holder = threadId;
        holderHolds = 1;
        holderLeaseEnd = watchdogLease ? 0 : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
        holderGeneration++;
    }

    /** The holder re-entered: Redis has its new lease (a watchdog one is renewed from now on). */
    private void reArmHolderLease(long leaseMillis, boolean watchdogLease) {
        holderLeaseEnd = watchdogLease ? 0 : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
        holderGeneration++;
        watchHolderLease();
    }

    private void forgetHolder() {
        holder = NONE;
        holderHolds = 0;
        holderLeaseEnd = 0;
        holderGeneration++;
    }

    private void retireIfIdle() {
        if (holder == NONE && !headRunning && waiters.isEmpty() && !retired) {
            retired = true;
            queues.remove(this);
        }
    }

    /** An owner waiting in the queue; its futures are the caller's. */
    static final class LocalWaiter implements PendingAcquire {
        private static final int WAITING = 0;
        private static final int CLAIMED = 1;
        private static final int GAVE_UP = 2;

        final long threadId;
        final long leaseMillis;
        final boolean watchdogLease;
        private final long deadlineNanos;
        private final boolean forever;
        final CompletableFuture<Boolean> result = new CompletableFuture<>();
        final CompletableFuture<Void> settled = new CompletableFuture<>();
        private final AtomicInteger state = new AtomicInteger(WAITING);

        LocalWaiter(long threadId, long leaseMillis, boolean watchdogLease, long waitNanos) {
            this.threadId = threadId;
            this.leaseMillis = leaseMillis;
            this.watchdogLease = watchdogLease;
            this.forever = waitNanos >= LockAcquisition.FOREVER / 4;
            this.deadlineNanos = forever ? 0 : System.nanoTime() + waitNanos;
        }

        /** A finished acquisition that did not get the lock. */
        static PendingAcquire notAcquired() {
            LocalWaiter waiter = new LocalWaiter(NONE, 0, false, 0);
            waiter.state.set(GAVE_UP);
            waiter.result.complete(false);
            waiter.settled.complete(null);
            return waiter;
        }

        /** Arms the wait's timeout and the caller's cancel; {@code leave} takes it out of the queue. */
        void onGiveUp(Runnable leave) {
            result.whenComplete((acquired, failure) -> {
                if (state.compareAndSet(WAITING, GAVE_UP)) {
                    leave.run();
                    settled.complete(null);
                }
            });
            if (!forever) {
                later(remainingNanos(), () -> {
                    if (state.compareAndSet(WAITING, GAVE_UP)) {
                        leave.run();
                        result.complete(false);
                        settled.complete(null);
                    }
                });
            }
        }

        @Override
        public CompletableFuture<Boolean> result() {
            return result;
        }

        @Override
        public CompletableFuture<Void> settled() {
            return settled;
        }

        boolean claim() {
            return state.compareAndSet(WAITING, CLAIMED);
        }

        /** Back in the queue after a hand-off that did not happen; gives up if its wait is over. */
        void unclaim() {
            state.set(WAITING);
            if (!forever && remainingNanos() == 0 && state.compareAndSet(WAITING, GAVE_UP)) {
                result.complete(false);
                settled.complete(null);
            }
        }

        long remainingNanos() {
            return forever ? LockAcquisition.FOREVER : Math.max(0, deadlineNanos - System.nanoTime());
        }

        void fail(Throwable failure) {
            if (state.compareAndSet(WAITING, GAVE_UP)) {
                result.completeExceptionally(failure);
                settled.complete(null);
            }
        }
    }
}
