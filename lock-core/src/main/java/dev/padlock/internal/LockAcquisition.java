package dev.padlock.internal;

import dev.padlock.internal.LockProtocol.Attempt;
import dev.padlock.internal.WakeUpRegistry.Subscription;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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
 * The wait budget is a {@link System#nanoTime()} deadline. While the subscription is not
 * confirmed (pub/sub connection down), parks are capped so waiters still make progress. A spinning
 * acquisition (the spin lock, for setups without pub/sub) skips steps 2 and 3 and waits by
 * exponential back-off with jitter between attempts instead.
 *
 * <p>{@link #result()} may be cancelled at any time (interrupt, {@code Future.cancel}): a parked
 * loop wakes at once, and an acquisition that lands after the cancel is released again, so
 * nothing is left on Redis. {@link #settled()} completes once the loop has stopped and cleaned
 * up. Fields without a note are confined to the step running now; steps never overlap.
 */
final class LockAcquisition implements PendingAcquire {
    private static final Logger log = LoggerFactory.getLogger(LockAcquisition.class);

    /** A wait without deadline. */
    static final long FOREVER = Long.MAX_VALUE;
    /** Park bound while the unlock channel's subscription is not confirmed. */
    private static final long UNCONFIRMED_PARK_MILLIS = 100;
    /** First and largest back-off of a spinning wait. */
    static final long MIN_BACK_OFF_MILLIS = 1;
    static final long MAX_BACK_OFF_MILLIS = 128;

    private final LockProtocol protocol;
    private final WakeUpRegistry registry;
    private final Watchdog watchdog;
    private final long leaseMillis;
    private final boolean watchdogLease;
    private final long threadId;
    private final long deadlineNanos;
    private final boolean forever;
    private final boolean oneAttempt;
    private final boolean spin;
    private final long commandTimeoutMillis;
    private final CompletableFuture<Boolean> result = new CompletableFuture<>();
    private final CompletableFuture<Void> settled = new CompletableFuture<>();
    private Subscription subscription;
    private long backOffMillis = MIN_BACK_OFF_MILLIS;
    /** Whether an attempt that may have queued the owner on Redis (a fair lock) was sent and not yet answered "acquired". */
    private boolean mayBeQueued;
    /** The fencing token of the acquisition, once acquired, for kinds that have one. */
    private volatile long token = Attempt.NO_TOKEN;
    /** The park in progress, if any; written by the loop, completed early by a cancel. */
    private volatile CompletableFuture<Boolean> parked;

    private LockAcquisition(LockProtocol protocol, WakeUpRegistry registry, Watchdog watchdog,
            long leaseMillis, boolean watchdogLease, long threadId, long waitNanos, long commandTimeoutMillis,
            boolean spin) {
        this.protocol = protocol;
        this.registry = registry;
        this.watchdog = watchdog;
        this.leaseMillis = leaseMillis;
        this.watchdogLease = watchdogLease;
        this.threadId = threadId;
        this.forever = waitNanos >= Long.MAX_VALUE / 4;
        this.oneAttempt = waitNanos <= 0;
        this.deadlineNanos = forever ? 0 : System.nanoTime() + waitNanos;
        this.commandTimeoutMillis = commandTimeoutMillis;
        this.spin = spin;
        result.whenComplete((acquired, failure) -> {
            CompletableFuture<Boolean> park = parked;
            if (result.isCancelled() && park != null) {
                park.complete(false);
            }
        });
    }

    /**
     * Starts acquiring.
     *
     * @param leaseMillis the lease set on Redis (the watchdog timeout for watchdog leases)
     * @param waitNanos the wait budget; {@code 0} for one attempt, {@link #FOREVER} for no bound
     * @param spin wait by back-off between attempts instead of on the unlock channel: no pub/sub
     */
    static LockAcquisition start(LockProtocol protocol, WakeUpRegistry registry, Watchdog watchdog,
            long leaseMillis, boolean watchdogLease, long threadId, long waitNanos, long commandTimeoutMillis,
            boolean spin) {
        LockAcquisition acquisition = new LockAcquisition(protocol, registry, watchdog,
                leaseMillis, watchdogLease, threadId, waitNanos, commandTimeoutMillis, spin);
        if (!acquisition.oneAttempt && !spin) {
            // a recently contended lock: already subscribed, so a failed first attempt can park at once
            acquisition.subscription = registry.subscribeIfConfirmed(protocol.unlockChannel(threadId));
        }
        acquisition.attempt();
        return acquisition;
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

    private void attempt() {
        if (result.isDone()) {
            settle();
            return;
        }
        if (registry.isClosed()) {
            fail(new IllegalStateException("the LockClient is closed"));
            return;
        }
        mayBeQueued |= !oneAttempt;
        protocol.tryAcquire(leaseMillis, threadId, !oneAttempt).whenComplete(this::onAttempt);
    }

    private void onAttempt(Attempt attempt, Throwable failure) {
        if (failure != null) {
            fail(failure);
            return;
        }
        long ttl = attempt.ttl();
        if (attempt.acquired()) {
            mayBeQueued = false;
            token = attempt.token();
            onAcquired();
        } else if (result.isDone()) {
            settle();
        } else if (attempt.refusal() != null) {
            // waiting cannot help: a bounded wait answers false now, an unbounded one would never end
            stop(forever ? () -> result.completeExceptionally(new IllegalMonitorStateException(attempt.refusal()))
                    : () -> result.complete(false));
        } else if (oneAttempt || (!forever && deadlineNanos - System.nanoTime() <= 0)) {
            stop(() -> result.complete(false));
        } else if (spin) {
            backOff(ttl);
        } else if (subscription == null) {
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
        long step = backOffMillis;
        backOffMillis = Math.min(MAX_BACK_OFF_MILLIS, backOffMillis * 2);
        long millis = step / 2 + java.util.concurrent.ThreadLocalRandom.current().nextLong(step / 2 + 1);
        if (ttl >= 0) {
            millis = Math.min(millis, Math.max(ttl, 1));
        }
        millis = Math.max(1, Math.min(millis, remainingMillis()));
        CompletableFuture<Boolean> gate = new CompletableFuture<>();
        gate.completeOnTimeout(false, millis, TimeUnit.MILLISECONDS);
        attemptWhenDone(gate);
    }

    private void subscribeThenAttempt() {
        try {
            subscription = registry.subscribe(protocol.unlockChannel(threadId));
        } catch (RuntimeException e) {
            fail(e);
            return;
        }
        CompletableFuture<Boolean> confirmed = new CompletableFuture<>();
        subscription.ready().whenComplete((ignored, failure) -> confirmed.complete(failure == null));
        confirmed.completeOnTimeout(false, Math.min(remainingMillis(), commandTimeoutMillis), TimeUnit.MILLISECONDS);
        attemptWhenDone(confirmed);
    }

    private void park(long ttl) {
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
        parked = gate;
        if (result.isCancelled()) {
            gate.complete(false);
        }
        gate.whenComplete((woken, failure) -> attempt());
    }

    private void onAcquired() {
        unsubscribe();
        boolean renewed = false;
        if (!result.isDone()) {
            watchdog.onAcquired(protocol, threadId, watchdogLease);
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
        unsubscribe();
        if (!mayBeQueued) {
            complete.run();
            settled.complete(null);
            return;
        }
        mayBeQueued = false;
        protocol.leaveQueue(threadId).whenComplete((ignored, failure) -> {
            if (failure != null) {
                log.debug("could not leave the queue of lock '{}'; the entry expires by itself: {}",
                        protocol.name(), failure.toString());
            }
            complete.run();
            settled.complete(null);
        });
    }

    private long remainingMillis() {
        if (forever) {
            return Long.MAX_VALUE;
        }
        long nanos = deadlineNanos - System.nanoTime();
        return nanos <= 0 ? 0 : TimeUnit.NANOSECONDS.toMillis(nanos + 999_999);
    }
}
