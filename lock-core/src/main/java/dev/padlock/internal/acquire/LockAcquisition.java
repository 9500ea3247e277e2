package dev.padlock.internal.acquire;

import dev.padlock.RedisUnavailableException;
import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.base.Timeouts;
import dev.padlock.internal.base.WaitBudget;
import dev.padlock.internal.protocol.LockProtocol;
import dev.padlock.internal.protocol.LockProtocol.Attempt;
import dev.padlock.internal.redis.RedisErrors;
import dev.padlock.internal.renewal.Watchdog;
import dev.padlock.internal.wakeup.WakeUps;
import dev.padlock.internal.wakeup.WakeUps.Subscription;
import io.netty.util.Timer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquisition in progress: the wait loop shared by the blocking and asynchronous API.
 *
 * <h2>Implementation notes</h2>
 * The loop runs as a chain of future callbacks, one step at a time:
 * <ol>
 *   <li>attempt; acquired: done. Free wait left: go on, else done with {@code false};</li>
 *   <li>first failure only: subscribe to the unlock channel, wait (bounded) for Redis to confirm,
 *       and attempt again, so an unlock between the first attempt and the subscription is not
 *       missed. When this client's subscription was already confirmed before the first attempt
 *       (a lock contended recently), it is taken before that attempt and this step is skipped;</li>
 *   <li>park until an unlock message, the holder's lease ends, or the wait budget runs out,
 *       whichever comes first, then attempt again.</li>
 * </ol>
 * The wait budget is a {@link WaitBudget} on the client's clock; every wait is a timeout on the
 * client's timer. While the subscription is not
 * confirmed (pub/sub connection down), parks are capped so waiters still make progress. A spinning
 * acquisition (the spin lock, for setups without pub/sub) skips steps 2 and 3 and waits by
 * exponential back-off with jitter between attempts instead.
 *
 * <p><b>Lost replies.</b> An attempt whose reply is lost (a {@link RedisUnavailableException})
 * may or may not have landed: the loop finds out, by sending a claim again or by
 * {@linkplain LockProtocol#confirm asking}, and goes on waiting if it had not; the caller gets the
 * exception only once the wait plus twice the command timeout is spent. See {@link LostReplies},
 * which also gives back a claim given up on while its outcome is unknown.
 *
 * <p><b>Grants.</b> For kinds that {@linkplain LockProtocol#grants() grant}, a failed claim of an
 * acquisition with a place nonce puts its client in line on Redis for this owner; a release by
 * another client may then pass the lock straight to it, and say so on the client's grant channel.
 * {@link #grant} takes that message: the loop's next step (a parked loop wakes at once, an attempt
 * in flight is overruled, a stop that has not yet told its caller turns round) counts the owner as
 * holding, since the message comes from the script call that put the owner's field in. A claim that
 * succeeds after it got in line leaves the line; one that stops without the lock leaves it too.
 * Kinds that grant without claiming (the fair lock) take their place with an attempt
 * ({@link LockProtocol#tryAcquire(long, long, boolean, long, boolean)}), and where a grant message
 * does not {@linkplain LockProtocol#grantMessageConfirms() confirm} a hold, it only wakes the loop,
 * whose next attempt finds the grant.
 *
 * <p>{@link #result()} may be cancelled at any time (interrupt, {@code Future.cancel}): a parked
 * loop wakes at once, and an acquisition that lands after the cancel is released again, so
 * nothing is left on Redis. {@link #settled()} completes once the loop has stopped and cleaned
 * up. Fields without a note are confined to the step running now; steps never overlap.
 */
public final class LockAcquisition implements PendingAcquire {
    private static final Logger log = LoggerFactory.getLogger(LockAcquisition.class);

    /** A wait without deadline. */
    public static final long FOREVER = WaitBudget.FOREVER;
    /** Park bound while the unlock channel's subscription is not confirmed. */
    private static final long UNCONFIRMED_PARK_MILLIS = 100;
    /** First and largest back-off of a spinning wait. */
    public static final long MIN_BACK_OFF_MILLIS = 1;
    public static final long MAX_BACK_OFF_MILLIS = 128;

    private final LockProtocol protocol;
    private final WakeUps registry;
    private final Watchdog watchdog;
    private final Timer timer;
    private final EngineClock clock;
    private final long leaseMillis;
    private final boolean watchdogLease;
    private final long threadId;
    private final WaitBudget budget;
    private final boolean forever;
    private final boolean oneAttempt;
    private final boolean spin;
    private final long commandTimeoutMillis;
    /** First holds are claims (idempotent): the owner holds none of the lock and its kind claims. */
    private final boolean claim;
    private final Abandonments abandonments;
    /** Identifies this acquisition's place in line on Redis and the grant answering it; 0: it takes none. */
    private final long placeNonce;
    /** Whether this client may be in line for this owner (an attempt got it in line, or a release put it back). */
    private boolean inLine;
    private final GrantLatch latch = new GrantLatch();
    private final CompletableFuture<Boolean> result = new CompletableFuture<>();
    private final CompletableFuture<Void> settled = new CompletableFuture<>();
    private Subscription subscription;
    /** This client's grant channel, once a claim put (or will put) it in line: see {@link #grant}. */
    private Subscription grantSubscription;
    private final Backoff spinBackOff = new Backoff(MIN_BACK_OFF_MILLIS, MAX_BACK_OFF_MILLIS);
    private final LostReplies lostReplies;
    /** Whether an attempt that may have queued the owner on Redis (a fair lock) was sent and not yet answered "acquired". */
    private boolean mayBeQueued;
    /** The fencing token of the acquisition, once acquired, for kinds that have one. */
    private volatile long token = Attempt.NO_TOKEN;
    /** The park in progress, if any; written by the loop, completed early by a cancel. */
    private volatile CompletableFuture<Boolean> parked;
    /** Whether it stopped without the lock and could not leave its place in line (see {@link #placeLeftBehind}). */
    private volatile boolean placeLeftBehind;
    /** Runs once the owner holds, before its caller is told: see {@link #beforeTold}. */
    private volatile Runnable beforeTold;
    /** Whether the loop was started or the acquisition ended before it: see {@link #claimBegin}. */
    private final AtomicBoolean begun = new AtomicBoolean();

    private LockAcquisition(AcquireContext context, LockProtocol protocol, AcquireRequest request) {
        this.protocol = protocol;
        this.registry = context.wakeUps();
        this.watchdog = context.watchdog();
        this.timer = context.timer();
        this.clock = context.clock();
        this.leaseMillis = request.leaseMillis();
        this.watchdogLease = request.watchdogLease();
        this.threadId = request.owner();
        this.budget = WaitBudget.of(request.waitNanos(), clock);
        this.forever = budget.forever();
        this.oneAttempt = budget.oneAttempt();
        this.commandTimeoutMillis = context.commandTimeoutMillis();
        this.spin = request.spin();
        this.claim = request.fresh() && protocol.claims();
        this.abandonments = context.abandonments();
        this.lostReplies = new LostReplies(protocol, threadId, leaseMillis, claim, budget, commandTimeoutMillis, clock,
                abandonments);
        this.placeNonce = spin || !protocol.grants() ? 0 : request.placeNonce();
        this.inLine = request.inLine() && this.placeNonce != 0;
        result.whenComplete((acquired, failure) -> {
            CompletableFuture<Boolean> park = parked;
            if (result.isCancelled() && park != null) {
                park.complete(false);
            }
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
        return begun.compareAndSet(false, true);
    }

    /**
     * Ends an acquisition that has not begun (its wait ran out or it was cancelled while its start
     * waited): it answers {@code false} without asking Redis. Does nothing once it has begun.
     */
    public void endBeforeBegin() {
        if (begun.compareAndSet(false, true)) {
            latch.end();
            result.complete(false);
            settled.complete(null);
        }
    }

    /** Sets what runs once the owner holds, before its caller is told (null: nothing); before {@link #begin()}. */
    public void beforeTold(Runnable hook) {
        this.beforeTold = hook;
    }

    /** Starts the loop; once. */
    public void begin() {
        if (!oneAttempt && !spin) {
            // a recently contended lock: already subscribed, so a failed first attempt can park at once
            subscription = registry.subscribeIfConfirmed(protocol.unlockChannel(threadId));
            if (placeNonce != 0) {
                grantSubscription = registry.subscribeIfConfirmed(protocol.grantChannel());
            }
        }
        CompletableFuture<Void> giveBack = abandonments.pending(protocol, threadId);
        if (giveBack != null) {
            afterGiveBack(giveBack);
        } else if (inLine && subscribed()) {
            // a release put this client back in line for this owner as it granted the lock to another
            // client: its turn comes as a grant, so it waits for it without an attempt
            park(-1);
        } else {
            attempt();
        }
    }

    /** Whether every channel this acquisition waits on is subscribed (and was confirmed when taken). */
    private boolean subscribed() {
        return subscription != null && (placeNonce == 0 || grantSubscription != null);
    }

    /**
     * A release by another client passed the lock to this acquisition's owner, answering the place
     * in line with {@code nonce}: the owner holds it (see the class notes).
     *
     * @return whether this acquisition takes it; false when the nonce is not its own, or it has
     *     already stopped or acquired (the caller decides what becomes of the grant)
     */
    public boolean grant(long nonce) {
        if (placeNonce == 0 || nonce != placeNonce) {
            return false;
        }
        if (!protocol.grantMessageConfirms()) {
            // the message is only a wake-up: the next attempt finds the grant, and says so
            boolean running = latch.requestWake();
            CompletableFuture<Boolean> park = parked;
            if (park != null) {
                park.complete(true);
            }
            return running;
        }
        if (!latch.grant()) {
            return false;
        }
        CompletableFuture<Boolean> park = parked;
        if (park != null) {
            park.complete(true);
        }
        return true;
    }

    /** Whether the lock came by a grant message. */
    public boolean granted() {
        return latch.granted();
    }

    /** The nonce of this acquisition's place in line; 0 when it takes none. */
    public long placeNonce() {
        return placeNonce;
    }

    /**
     * Whether it stopped without the lock while its place may still be in line on Redis (the call
     * to leave it failed): a grant to that place holds the lock for nobody, and is to be given back.
     */
    public boolean placeLeftBehind() {
        return placeLeftBehind;
    }

    /**
     * Attempts once the give-back of this owner's earlier claim is done (see {@link Abandonments}):
     * an attempt sent before it could be taken back by it. Redis not answering that long fails.
     */
    private void afterGiveBack(CompletableFuture<Void> giveBack) {
        CompletableFuture<Boolean> gate = new CompletableFuture<>();
        giveBack.whenComplete((ignored, failure) -> gate.complete(true));
        Timeouts.completeAfter(timer, gate, false, lostReplies.boundMillisFromNow(), TimeUnit.MILLISECONDS);
        arm(gate);
        gate.whenComplete((done, failure) -> {
            if (giveBack.isDone() || result.isDone()) {
                attempt();
            } else {
                fail(new RedisUnavailableException("acquiring lock '" + protocol.name() + "' at "
                        + registry.address() + ": Redis did not answer the give-back of an earlier acquisition by "
                        + protocol.ownerField(threadId) + " whose reply was lost", null));
            }
        });
    }

    @Override
    public CompletableFuture<Boolean> result() {
        return result;
    }

    @Override
    public CompletableFuture<Void> settled() {
        return settled;
    }

    /** The fencing token this acquisition got; {@link Attempt#NO_TOKEN} unless acquired by a kind with tokens. */
    @Override
    public long token() {
        return token;
    }

    @Override
    public Throwable lastUnanswered() {
        return lostReplies.lastUnanswered();
    }

    private void attempt() {
        if (latch.isGranted()) {
            onAcquired();
            return;
        }
        if (result.isDone()) {
            settle();
            return;
        }
        if (registry.isClosed()) {
            fail(new IllegalStateException("the LockClient is closed"));
            return;
        }
        mayBeQueued |= !oneAttempt;
        latch.attempting(); // this attempt is the one a wake-up asked for
        CompletableFuture<Attempt> reply;
        try {
            // a place in line only once the grant channel is subscribed: a grant nobody hears is wasted
            long nonce = grantSubscription != null ? placeNonce : 0;
            if (claim) {
                reply = protocol.tryClaim(leaseMillis, threadId, !oneAttempt, nonce, inLine);
            } else if (nonce != 0 && !oneAttempt) {
                reply = protocol.tryAcquire(leaseMillis, threadId, true, nonce, inLine);
                inLine = true; // taken by this attempt unless it acquires; maybe so when its reply is lost
            } else {
                reply = protocol.tryAcquire(leaseMillis, threadId, !oneAttempt);
            }
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        reply.whenComplete(this::onAttempt);
    }

    private void onAttempt(Attempt attempt, Throwable failure) {
        if (failure != null) {
            onUnanswered(failure);
            return;
        }
        lostReplies.answered();
        long ttl = attempt.ttl();
        if (!attempt.acquired() && claim && grantSubscription != null && !oneAttempt) {
            inLine = true; // the failed claim got this client in line
        }
        if (attempt.acquired() || latch.isGranted()) {
            mayBeQueued = false;
            token = attempt.token();
            onAcquired();
        } else if (result.isDone()) {
            settle();
        } else if (attempt.refusal() != null) {
            // waiting cannot help: a bounded wait answers false now, an unbounded one would never end
            stop(forever ? () -> result.completeExceptionally(new IllegalMonitorStateException(attempt.refusal()))
                    : () -> result.complete(false));
        } else if (oneAttempt || budget.spent()) {
            stop(() -> result.complete(false));
        } else if (spin) {
            backOff(ttl);
        } else if (!subscribed()) {
            subscribeThenAttempt();
        } else {
            park(ttl);
        }
    }

    /**
     * A spinning wait: the next attempt after an exponential back-off with jitter (a random time
     * in the upper half of the current step, so spinning clients spread out), bounded by the
     * holder's lease and the wait left. Sends nothing but the attempts.
     */
    private void backOff(long ttl) {
        long millis = spinBackOff.nextWithJitter();
        if (ttl >= 0) {
            millis = Math.min(millis, Math.max(ttl, 1));
        }
        millis = Math.max(1, Math.min(millis, remainingMillis()));
        CompletableFuture<Boolean> gate = new CompletableFuture<>();
        Timeouts.completeAfter(timer, gate, false, millis, TimeUnit.MILLISECONDS);
        attemptWhenDone(gate);
    }

    private void subscribeThenAttempt() {
        try {
            if (subscription == null) {
                subscription = registry.subscribe(protocol.unlockChannel(threadId));
            }
            if (placeNonce != 0 && grantSubscription == null) {
                // before the claim that puts this client in line: a grant nobody hears is taken back
                grantSubscription = registry.subscribe(protocol.grantChannel());
            }
        } catch (RuntimeException e) {
            fail(e);
            return;
        }
        CompletableFuture<Boolean> confirmed = new CompletableFuture<>();
        CompletableFuture<Void> ready = grantSubscription == null ? subscription.ready()
                : CompletableFuture.allOf(subscription.ready(), grantSubscription.ready());
        ready.whenComplete((ignored, failure) -> confirmed.complete(failure == null));
        Timeouts.completeAfter(timer, confirmed, false, Math.min(remainingMillis(), commandTimeoutMillis), TimeUnit.MILLISECONDS);
        attemptWhenDone(confirmed);
    }

    private void park(long ttl) {
        if (latch.wakeRequested()) {
            attempt();
            return;
        }
        long millis = Math.min(remainingMillis(), protocol.maxParkMillis());
        if (ttl >= 0) {
            millis = Math.min(millis, Math.max(ttl, 1));
        }
        if (!subscription.isReady()) {
            millis = Math.min(millis, UNCONFIRMED_PARK_MILLIS);
        }
        attemptWhenDone(subscription.park(millis));
    }

    /** Attempts again when {@code gate} completes; a cancel completes it early. */
    private void attemptWhenDone(CompletableFuture<Boolean> gate) {
        arm(gate);
        gate.whenComplete((woken, failure) -> attempt());
    }

    /**
     * Makes {@code gate} the park in progress: a cancel or a grant that came before it completes
     * it at once ({@link #grant} reads {@link #parked} after setting its state, this reads the state
     * after setting {@link #parked}, so one of them sees the other).
     */
    private void arm(CompletableFuture<Boolean> gate) {
        parked = gate;
        if (result.isCancelled()) {
            gate.complete(false);
        }
        if (latch.wakes()) {
            gate.complete(true);
        }
    }

    /**
     * A call failed. Redis's own error answer ends the acquisition; a lost reply is found out about
     * (see {@link LostReplies}), within the bound.
     */
    private void onUnanswered(Throwable failure) {
        if (!LostReplies.isLost(failure)) {
            fail(failure);
            return;
        }
        if (latch.isGranted()) {
            onAcquired();
            return;
        }
        lostReplies.lost(failure);
        if (result.isDone()) {
            settle();
            return;
        }
        long millis = lostReplies.pauseMillis();
        if (millis <= 0) {
            fail(failure);
            return;
        }
        CompletableFuture<Boolean> gate = new CompletableFuture<>();
        Timeouts.completeAfter(timer, gate, false, millis, TimeUnit.MILLISECONDS);
        arm(gate);
        gate.whenComplete((woken, ignored) -> findOut());
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
        lostReplies.confirm().whenComplete((found, failure) -> {
            if (failure != null) {
                onUnanswered(failure);
                return;
            }
            lostReplies.answered();
            if (found.acquired() || latch.isGranted()) {
                mayBeQueued = false;
                token = found.token();
                onAcquired();
            } else if (result.isDone() || oneAttempt || budget.spent()) {
                stop(() -> result.complete(false));
            } else {
                attempt();
            }
        });
    }

    private void onAcquired() {
        latch.held();
        lostReplies.held();
        inLine = false; // a successful claim left the line; a grant took the place
        unsubscribe();
        boolean renewed = false;
        if (!result.isDone()) {
            watchdog.onAcquired(protocol, threadId, watchdogLease);
            Runnable hook = beforeTold;
            if (hook != null) {
                hook.run();
            }
            if (result.complete(true)) {
                settle();
                return;
            }
            renewed = watchdog.beforeRelease(protocol, threadId);
        }
        // cancelled while the acquisition was on its way: give it back (one hold: a re-entry keeps the rest)
        boolean paused = renewed;
        protocol.release(threadId, renewed ? watchdog.leaseMillis() : 0).whenComplete((release, failure) -> {
            if (paused) {
                watchdog.afterRelease(protocol, threadId,
                        failure == null && release.outcome() == LockProtocol.ReleaseOutcome.STILL_HELD);
            }
            if (failure != null) {
                log.warn("could not give back lock '{}' after its acquisition was cancelled; its lease will expire: {}",
                        protocol.name(), failure.toString());
            }
            settle();
        });
    }

    private void fail(Throwable failure) {
        stop(() -> result.completeExceptionally(RedisErrors.unwrap(failure)));
    }

    /** Gives the subscription back; done before the result completes, so a caller sees none left. */
    private void unsubscribe() {
        if (subscription != null) {
            subscription.close();
            subscription = null;
        }
        if (grantSubscription != null) {
            grantSubscription.close();
            grantSubscription = null;
        }
    }

    private void settle() {
        stop(() -> { });
    }

    /**
     * Stops without the lock: gives back the subscription and any place in a queue on Redis,
     * then runs {@code complete} (which settles the result), then completes {@link #settled}.
     * Leaving the queue comes first, so a caller that tries again at once is queued anew.
     */
    private void stop(Runnable complete) {
        if (!latch.stop()) {
            onAcquired(); // a grant came before the caller was told otherwise
            return;
        }
        unsubscribe();
        lostReplies.giveUp(); // the caller is told it failed: what may have landed must not stay
        // a kind that grants keeps a place in line only for a head whose claim took one
        boolean leave = protocol.grants() ? inLine : mayBeQueued;
        mayBeQueued = false;
        inLine = false;
        if (!leave) {
            complete.run();
            settled.complete(null);
            return;
        }
        CompletableFuture<Boolean> left = placeNonce != 0 && !claim
                ? protocol.leaveQueue(threadId, leaseMillis, placeNonce)
                : protocol.leaveQueue(threadId).thenApply(ignored -> false);
        left.whenComplete((held, failure) -> {
            if (failure != null) {
                log.debug("could not leave the queue of lock '{}'; the entry expires by itself: {}",
                        protocol.name(), failure.toString());
                placeLeftBehind = placeNonce != 0 && !claim;
            } else if (held) {
                onAcquired(); // a grant came as it gave up, and the caller was not told yet: it holds
                return;
            }
            complete.run();
            settled.complete(null);
        });
    }

    private long remainingMillis() {
        return budget.remainingMillis();
    }
}
