package dev.padlock.internal.acquire;

import dev.padlock.RedisUnavailableException;
import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.base.WaitBudget;
import dev.padlock.internal.lease.LeaseMillis;
import dev.padlock.internal.protocol.Granting;
import dev.padlock.internal.protocol.LockProtocol;
import dev.padlock.internal.protocol.LockProtocol.Attempt;
import dev.padlock.internal.wakeup.WakeUps;
import io.netty.util.Timer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition in progress: the wait loop shared by the blocking and asynchronous API.
 *
 * <h2>Implementation notes</h2>
 * The loop runs as a chain of future callbacks, one step at a time:
 * <ol>
 *   <li>attempt; acquired: done. Free wait left: go on, else done with {@code false};</li>
 *   <li>first failure only: subscribe, wait (bounded) for Redis to confirm, and attempt again, so
 *       an unlock between the first attempt and the subscription is not missed; skipped when this
 *       client's subscriptions were confirmed already (a lock contended recently);</li>
 *   <li>park until an unlock message, the holder's lease ends, or the wait runs out, whichever
 *       comes first, then attempt again.</li>
 * </ol>
 * A spinning acquisition (the spin lock, for setups without pub/sub) skips steps 2 and 3 and waits
 * by a {@link Backoff} with jitter instead, bounded by the holder's lease and the wait left. The
 * wait is a {@link WaitBudget} on the client's clock; every wait is a timeout on its timer.
 *
 * <p>Each concern has a class: the channels and the park ({@link Subscriptions}); the attempts and
 * the place in line on Redis they may take ({@link PlaceInLine}); replies lost in a failure, which
 * the loop finds out about and never guesses ({@link LostReplies}); the waits between attempts
 * ({@link Pauses}); grant messages that answer the place ({@link GrantLatch}: a parked loop wakes
 * at once, an attempt in flight is overruled, a stop that has not told its caller turns round);
 * and the end, holding or not, with what is given back before the caller is told ({@link Settlement}).
 *
 * <p>{@link #result()} may be cancelled at any time (interrupt, {@code Future.cancel}): a parked
 * loop wakes at once, and an acquisition that lands after the cancel is released again, so
 * nothing is left on Redis. {@link #settled()} completes once the loop has stopped and cleaned
 * up. Fields without a note are confined to the step running now; steps never overlap.
 */
public final class LockAcquisition implements PendingAcquire {
    /** A wait without deadline. */
    public static final long FOREVER = WaitBudget.FOREVER;
    /** First and largest back-off of a spinning wait. */
    public static final long MIN_BACK_OFF_MILLIS = 1;
    public static final long MAX_BACK_OFF_MILLIS = 128;

    private final LockProtocol protocol;
    private final WakeUps registry;
    private final Timer timer;
    private final long threadId;
    private final WaitBudget budget;
    private final boolean spin;
    private final long commandTimeoutMillis;
    private final EngineClock clock;
    private final Subscriptions subscriptions;
    private final PlaceInLine place;
    private final LostReplies lostReplies;
    private final GrantLatch latch = new GrantLatch();
    private final Settlement settlement;
    /** What the loop waits on between two attempts. */
    private final Pauses pauses;
    /** The caller's result: {@link Settlement#result()}. */
    private final CompletableFuture<Boolean> result;
    /** The fencing token of the acquisition, once acquired, for kinds that have one. */
    private volatile long token = Attempt.NO_TOKEN;
    /** When the attempt in flight was sent. */
    private long attemptSentNanos;
    /** Set before the first attempt goes out: see {@link #mayHaveLanded()}. */
    private volatile boolean sentAnAttempt;
    /** See {@link #startsNewCountIf}; null: the attempts count as usual. */
    private @Nullable BooleanSupplier newCount;
    /** Whether the loop was started or the acquisition ended before it: see {@link #claimBegin}. */
    private volatile int begun;
    private static final AtomicIntegerFieldUpdater<LockAcquisition> BEGUN =
            AtomicIntegerFieldUpdater.newUpdater(LockAcquisition.class, "begun");

    private LockAcquisition(AcquireContext context, LockProtocol protocol, AcquireRequest request) {
        this.protocol = protocol;
        this.registry = context.wakeUps();
        this.timer = context.timer();
        this.threadId = request.owner();
        this.clock = context.clock();
        this.budget = WaitBudget.of(request.waitNanos(), clock);
        this.spin = request.spin();
        this.commandTimeoutMillis = context.commandTimeoutMillis();
        // first holds are claims (idempotent): the owner holds none of the lock and its kind claims
        boolean claim = request.fresh() && protocol.claiming() != null;
        long placeNonce = spin || protocol.granting() == null ? 0 : request.placeNonce();
        this.subscriptions = new Subscriptions(registry, timer, protocol, threadId, placeNonce != 0);
        long ttlMillis = LeaseMillis.ttlMillis(request.leaseMillis(), context.watchdog().leaseMillis());
        this.place = new PlaceInLine(protocol, context.abandonments(), threadId, ttlMillis, claim,
                budget.oneAttempt(), placeNonce, request.inLine());
        this.lostReplies = new LostReplies(protocol, threadId, ttlMillis, claim, budget, commandTimeoutMillis,
                context.clock(), context.abandonments());
        place.countsOtherHoldsBy(lostReplies);
        this.settlement = new Settlement(protocol, threadId, request.leaseMillis(), context, latch, lostReplies, place,
                subscriptions, clock.nanoTime(), this::notHeldAfterAll);
        this.result = settlement.result();
        this.pauses = new Pauses(timer, clock, budget, subscriptions, latch, protocol, commandTimeoutMillis, result,
                this::attempt);
        result.whenComplete((acquired, failure) -> {
            if (!result.isCancelled()) {
                return;
            }
            // a call of it may still land and be given back: the owner's next acquisition waits
            context.abandonments().awaitSettle(protocol, threadId, settlement.settled());
            pauses.wake(false);
        });
    }

    /** Starts acquiring: {@link #create} then {@link #begin()}. */
    public static LockAcquisition start(AcquireContext context, LockProtocol protocol, AcquireRequest request) {
        LockAcquisition acquisition = create(context, protocol, request);
        acquisition.begin();
        return acquisition;
    }

    /** An acquisition that has not started; {@link #begin()} starts it. */
    public static LockAcquisition create(AcquireContext context, LockProtocol protocol, AcquireRequest request) {
        return new LockAcquisition(context, protocol, request);
    }

    /**
     * For an acquisition whose start waits for something (see {@code GrantWaits}): true when the
     * caller may now {@link #begin()} it, false when it already ended ({@link #endBeforeBegin}).
     */
    public boolean claimBegin() {
        return BEGUN.compareAndSet(this, 0, 1);
    }

    /**
     * Ends an acquisition that has not begun (its wait ran out or it was cancelled while its start
     * waited): it answers {@code false} without asking Redis. Does nothing once it has begun.
     */
    public void endBeforeBegin() {
        if (BEGUN.compareAndSet(this, 0, 1)) {
            settlement.endUnbegun();
        }
    }

    /**
     * Makes the attempts start a new hold count when {@code newCount} says so as the loop begins (see
     * {@link Granting#tryAcquire(long, long, boolean, long, boolean, boolean)}): for a kind that
     * does not claim, an owner whose last unlock could not be confirmed. Asked once, when the
     * acquisition begins: an earlier acquisition of the same owner may have settled by then. Before
     * {@link #begin()}; not with {@link #resume}.
     */
    public void startsNewCountIf(BooleanSupplier newCount) {
        this.newCount = newCount;
    }

    /**
     * The owner's holds of the lock are counted by this client (a re-entry's, or any of the fair,
     * read and write kinds): an attempt whose reply was lost is confirmed by the owner's hold count
     * on Redis against {@code heldBefore}, not by its field, which the owner's other holds keep
     * there (see {@link LostReplies#confirm()}), and given back if it landed after its caller gave
     * up. Before {@link #begin()}.
     */
    public void confirmsReentryBy(HeldBefore heldBefore) {
        lostReplies.reentries(heldBefore);
    }

    /**
     * A call sent at {@code sentNanos} (a release of this client's) put this client in line for the
     * owner: a grant to that place was written no earlier, so a grant read before any attempt of
     * this acquisition is answered is as old as that send, not as this acquisition's start (see
     * {@link Settlement#held()}). Before {@link #begin()}.
     */
    public void inLineSince(long sentNanos) {
        settlement.inLineSince(sentNanos);
    }

    /**
     * Sets what runs once the owner holds, before its caller is told, and what undoes it when a
     * cancel came in between (the hold is then given back); before {@link #begin()}.
     */
    public void beforeTold(Runnable hook, Runnable untold) {
        settlement.beforeTold(hook, untold);
    }

    /** Starts the loop; once. */
    public void begin() {
        if (newCount != null && protocol.claiming() == null && newCount.getAsBoolean()) {
            place.startNewCount();
            lostReplies.attemptsFindOut();
        }
        if (!budget.oneAttempt() && !spin) {
            subscriptions.takeConfirmed();
        }
        CompletableFuture<Void> giveBack = lostReplies.pendingGiveBack();
        if (giveBack != null) {
            pauses.attemptAfterGiveBack(giveBack, lostReplies, this::giveBackUnanswered);
        } else if (place.inLine() && subscriptions.complete()) {
            // a release put this client back in line for this owner as it granted the lock to another
            // client: its turn comes as a grant, so it waits for it without an attempt
            pauses.park(-1);
        } else {
            attempt();
        }
    }

    /**
     * Starts the loop, in place of {@link #begin()}, from the answer to a first attempt its caller
     * sent ({@link dev.padlock.internal.protocol.LocalHandOff#firstAttempt}) and found not
     * "acquired", or the failure that lost it.
     *
     * @param willWait what the attempt was sent with
     * @param sentNanos when it was sent, as {@link AcquireContext#clock()} reads
     */
    public void resume(boolean willWait, long sentNanos, Attempt attempt, Throwable failure) {
        sentAnAttempt = true;
        place.sent(willWait);
        attemptSentNanos = sentNanos;
        onAttempt(attempt, failure);
    }

    /**
     * A release by another client passed the lock to this acquisition's owner, answering the place
     * in line with {@code nonce}: the owner holds it (see the class notes).
     *
     * @return whether this acquisition takes it; false when the nonce is not its own, or it has
     *     already stopped or acquired (the caller decides what becomes of the grant)
     */
    public boolean grant(long nonce) {
        Granting granting = protocol.granting(); // not null with a place
        if (place.nonce() == 0 || nonce != place.nonce() || granting == null) {
            return false;
        }
        // a message that does not confirm is only a wake-up: the next attempt finds the grant, and says so
        boolean confirms = granting.grantMessageConfirms();
        boolean taken = confirms ? latch.grant() : latch.requestWake();
        if (taken || !confirms) {
            pauses.wake(true);
        }
        return taken;
    }

    /** Whether the lock came by a grant message. */
    public boolean granted() {
        return latch.granted();
    }

    /** The nonce of this acquisition's place in line; 0 when it takes none. */
    public long placeNonce() {
        return place.nonce();
    }

    /**
     * Whether it stopped without the lock while its place may still be in line on Redis (the call
     * to leave it failed, and no leave sent again was answered yet): a grant to that place holds
     * the lock for nobody, and is to be given back ({@link #giveBackGrant()}).
     */
    public boolean placeLeftBehind() {
        return place.leftBehind();
    }

    /**
     * A grant reached its place left behind: gives it back, unless the leave sent again found it
     * and did so already (see {@code PlaceInLine}); once.
     */
    public void giveBackGrant() {
        place.giveBackGrant();
    }

    /** Sets what runs as its place is left behind, before its caller is told (null: nothing); before begin. */
    public void whenPlaceLeftBehind(Runnable hook) {
        place.onLeftBehind(hook);
    }

    @Override
    public CompletableFuture<Boolean> result() {
        return result;
    }

    @Override
    public CompletableFuture<Void> settled() {
        return settlement.settled();
    }

    @Override
    public boolean mayHaveLanded() {
        return sentAnAttempt;
    }

    /** The fencing token this acquisition got; {@link Attempt#NO_TOKEN} unless acquired by a kind with tokens. */
    @Override
    public long token() {
        return token;
    }

    @Override
    public @Nullable Throwable lastUnanswered() {
        return lostReplies.lastUnanswered();
    }

    /** Redis did not answer a give-back {@link Pauses#attemptAfterGiveBack} waited for. */
    private void giveBackUnanswered() {
        settlement.fail(new RedisUnavailableException("acquiring lock '" + protocol.name() + "' at "
                + registry.address() + ": Redis did not answer the give-back of what an earlier acquisition by "
                + protocol.ownerField(threadId) + " may have left (a claim or a place in line whose reply was"
                + " lost)", null));
    }

    private void attempt() {
        if (latch.isGranted()) {
            settlement.held();
            return;
        }
        if (result.isDone()) {
            settlement.settle();
            return;
        }
        if (registry.isClosed()) {
            settlement.fail(new IllegalStateException("the LockClient is closed"));
            return;
        }
        latch.attempting(); // this attempt is the one a wake-up asked for
        sentAnAttempt = true; // before it goes out: see mayHaveLanded
        attemptSentNanos = clock.nanoTime();
        place.attempt(subscriptions.hearsGrants()).whenComplete(this::onAttempt);
    }

    private void onAttempt(Attempt attempt, Throwable failure) {
        if (failure != null) {
            onUnanswered(failure);
            return;
        }
        lostReplies.answered();
        boolean granted = latch.isGranted();
        if (attempt.acquired() || !granted) {
            settlement.ttlSentAt(attemptSentNanos);
        }
        place.answered(attempt, subscriptions.hearsGrants());
        if (attempt.acquired()) {
            token = attempt.token();
            settlement.held();
        } else if (granted) {
            // a grant read with a refusal: the attempt found no field, so the grant was written after
            // it ran, or was gone by then (run out, force-unlocked): Redis says which
            settlement.confirmGrant();
        } else if (result.isDone()) {
            settlement.settle();
        } else if (attempt.refusal() != null) {
            // waiting cannot help: a bounded wait answers false now, an unbounded one would never end
            String refusal = attempt.refusal();
            settlement.stop(budget.forever()
                    ? () -> result.completeExceptionally(new IllegalMonitorStateException(refusal))
                    : () -> result.complete(false));
        } else if (budget.spent()) {
            settlement.stop(() -> result.complete(false));
        } else if (spin) {
            pauses.backOff(attempt.ttl());
        } else if (!subscriptions.complete()) {
            try {
                pauses.subscribeThenAttempt();
            } catch (RuntimeException e) {
                settlement.fail(e);
            }
        } else {
            pauses.park(attempt.ttl());
        }
    }

    /**
     * A hold confirmed too late was not found again (see {@code Settlement#confirmAgain}): the loop
     * goes on as after a refusal, or ends on Redis's own error answer.
     */
    private void notHeldAfterAll(Throwable failure) {
        if (failure != null && !LostReplies.isLost(failure)) {
            settlement.fail(failure);
        } else if (result.isDone()) {
            settlement.settle();
        } else if (budget.spent()) {
            settlement.stop(() -> result.complete(false));
        } else {
            attempt();
        }
    }

    /**
     * A call failed. Redis's own error answer ends the acquisition; a lost reply is found out about
     * (see {@link LostReplies}), within the bound.
     */
    private void onUnanswered(Throwable failure) {
        if (!LostReplies.isLost(failure)) {
            settlement.fail(failure);
            return;
        }
        if (latch.isGranted()) {
            settlement.held();
            return;
        }
        lostReplies.lost(failure);
        if (result.isDone()) {
            settlement.settle();
            return;
        }
        long millis = lostReplies.pauseMillis();
        if (millis <= 0) {
            settlement.fail(failure);
            return;
        }
        pauses.pause(millis, this::findOut);
    }

    /**
     * After a lost reply: a claim is sent again (its answer is the outcome); otherwise Redis is
     * asked whether the owner's field is there: it holds if so, else the loop goes on.
     */
    private void findOut() {
        if (lostReplies.attemptFindsOut() || result.isDone() || latch.isGranted()) {
            attempt();
            return;
        }
        if (lostReplies.countedOwnerHoldsNone()) {
            // the owner holds nothing as far as this client counts: the attempt finds out as a first
            // hold does (it claims), so whatever the field holds, the owner holds it once
            place.claimFromNowOn();
            lostReplies.attemptsFindOut();
            attempt();
            return;
        }
        lostReplies.confirm().whenComplete((found, failure) -> {
            if (failure != null) {
                onUnanswered(failure);
                return;
            }
            lostReplies.answered();
            if (found.acquired() || latch.isGranted()) {
                token = found.token();
                settlement.held();
                return;
            }
            if (lostReplies.notLandedWhileHolding()) {
                place.lostAttemptsTookNoPlace(); // the next attempt re-enters rather than takes a grant
            }
            if (result.isDone() || budget.spent()) {
                settlement.stop(() -> result.complete(false));
            } else {
                attempt();
            }
        });
    }
}
