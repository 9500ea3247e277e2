package dev.padlock.internal.semaphore;

import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.base.Timeouts;
import dev.padlock.internal.base.WaitBudget;
import dev.padlock.internal.wakeup.WakeUps;
import io.netty.util.Timer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One wait for permits of a semaphore, and its result: {@code true} once an attempt took them,
 * {@code false} when the wait ended first. An attempt is one script call; after a failed one the
 * wait subscribes to the semaphore's channel (once Redis confirmed it, it attempts again) and then
 * parks until a release's message wakes it, or a look interval passes (a lost message), or a lease
 * the attempt named ends (its permit comes back without a message), or the wait ends. Completing it from outside (a cancel, an interrupted caller) ends the wait: permits
 * that an attempt in flight takes afterwards are given back, so a waiter whose wait ended never
 * keeps one. A failed attempt fails the wait; what it may have taken on Redis (no answer is not
 * "not taken") is given back where a permit's id tells it ({@link Attempts#giveBackIfTaken}).
 *
 * <p>A wait that parks may also take permits released by a thread of its own client
 * ({@link PermitHandOffs}, when its {@link Attempts#waiting} registers it there): only while it is
 * open, as completing it is the one compare-and-set that decides between the hand-off and every
 * way the wait ends; an attempt in flight then finds it done and gives back what it took.
 *
 * <p>The loop's steps run one after another (each from the one before's completion), so its
 * subscription is confined to it.
 */
final class SemaphoreWait extends CompletableFuture<Boolean> implements PermitHandOffs.Waiter {
    private static final Logger log = LoggerFactory.getLogger(SemaphoreWait.class);

    /** An attempt's answer: the permits were taken. */
    static final long TAKEN = -1;
    /** An attempt's answer: not taken, and no lease ends by itself. */
    static final long NO_LEASE_ENDS = -2;

    /** The attempts of one wait. */
    interface Attempts {
        /**
         * Sends one attempt: completes with {@link #TAKEN}, {@link #NO_LEASE_ENDS}, or the
         * milliseconds until a permit's lease ends, when that permit comes back.
         */
        CompletableFuture<Long> take();

        /** Gives back the permits taken by an attempt whose wait had ended. */
        CompletableFuture<?> giveBack();

        /**
         * After an attempt that failed with no answer (a timeout, a lost connection), which Redis
         * may still have run: gives back what it may have taken, when that can be told apart (a
         * permit with its own id); null when it cannot (counted permits belong to nobody).
         */
        default @Nullable CompletableFuture<?> giveBackIfTaken() {
            return null;
        }

        /**
         * Called once, when the wait is about to park for the first time (its first attempt was
         * refused and time is left): where it may register to take permits released locally.
         */
        default void waiting(SemaphoreWait wait) {
        }
    }

    /** What is waited for, for log lines. */
    private final String what;
    private final Attempts attempts;
    private final WakeUps wakeUps;
    private final String channel;
    private final Timer timer;
    private final EngineClock clock;
    /** A reading of the clock, or none: {@link WaitBudget#FOREVER}. */
    private final long deadlineNanos;
    private final long lookMillis;
    private WakeUps.@Nullable Subscription subscription;
    /** The park in progress, abandoned when the wait ends from outside. */
    private volatile @Nullable CompletableFuture<Boolean> park;

    private SemaphoreWait(String what, Attempts attempts, WakeUps wakeUps, String channel, Timer timer, EngineClock clock,
            long waitNanos, long lookMillis) {
        this.what = what;
        this.attempts = attempts;
        this.wakeUps = wakeUps;
        this.channel = channel;
        this.timer = timer;
        this.clock = clock;
        this.deadlineNanos = waitNanos >= WaitBudget.FOREVER / 4 ? WaitBudget.FOREVER : clock.nanoTime() + waitNanos;
        this.lookMillis = lookMillis;
    }

    /**
     * Starts a wait of {@code waitNanos} ({@link WaitBudget#FOREVER}, or anything from a quarter of
     * it, for no bound; 0 for one attempt) for {@code what}, waking on {@code channel}.
     */
    static SemaphoreWait start(String what, Attempts attempts, WakeUps wakeUps, String channel, Timer timer,
            EngineClock clock, long waitNanos, long lookMillis) {
        SemaphoreWait wait = new SemaphoreWait(what, attempts, wakeUps, channel, timer, clock, waitNanos, lookMillis);
        wait.whenComplete((taken, failure) -> {
            CompletableFuture<Boolean> parked = wait.park;
            if (parked != null) {
                parked.complete(false); // ended from outside: the loop wakes, sees it, and closes
            }
        });
        wait.attempt();
        return wait;
    }

    private void attempt() {
        if (isDone()) {
            closeSubscription();
            return;
        }
        CompletableFuture<Long> sent;
        try {
            sent = attempts.take();
        } catch (RuntimeException e) {
            end(null, e);
            return;
        }
        sent.whenComplete((answer, failure) -> {
            if (failure != null) {
                end(null, failure);
                giveBackIfTaken();
            } else if (answer == TAKEN) {
                if (!end(true, null)) {
                    giveBack();
                }
            } else {
                afterRefusal(answer == NO_LEASE_ENDS ? Long.MAX_VALUE : answer + 1);
            }
        });
    }

    /** @param leaseEndsMillis when a permit comes back without a message: the next look, at the latest */
    private void afterRefusal(long leaseEndsMillis) {
        long remainingMillis = remainingMillis();
        if (remainingMillis <= 0 || isDone()) {
            end(false, null);
            return;
        }
        WakeUps.Subscription subscribed = subscription;
        if (subscribed == null) {
            attempts.waiting(this);
            try {
                subscribed = wakeUps.subscribe(channel);
            } catch (RuntimeException closed) {
                end(null, closed);
                return;
            }
            subscription = subscribed;
            // attempt again once messages will arrive: a release before that is not lost
            CompletableFuture<Boolean> ready = subscribed.ready().handle((ok, failure) -> true);
            await(Timeouts.completeAfter(timer, ready, false, Math.min(remainingMillis, lookMillis), TimeUnit.MILLISECONDS));
            return;
        }
        long parkMillis = Math.min(Math.min(remainingMillis, lookMillis), Math.max(1, leaseEndsMillis));
        await(subscribed.isReady() ? subscribed.park(parkMillis)
                : Timeouts.after(timer, parkMillis, TimeUnit.MILLISECONDS).thenApply(v -> false));
    }

    /** The next attempt once {@code wakeUp} completes; abandoned when the wait ends meanwhile. */
    private void await(CompletableFuture<Boolean> wakeUp) {
        park = wakeUp;
        if (isDone()) {
            wakeUp.complete(false);
        }
        wakeUp.whenComplete((woken, failure) -> {
            park = null;
            attempt();
        });
    }

    /**
     * Its caller gave up on it (cancelled the future it was given): ends it, or, when it took its
     * permits just before, gives them back, since the caller will not release them.
     */
    void abandon() {
        if (!cancel(false) && !isCompletedExceptionally() && Boolean.TRUE.equals(join())) {
            giveBack();
        }
    }

    @Override
    public boolean isParked() {
        return park != null && !isDone();
    }

    @Override
    public boolean takeHandOff() {
        if (deadlineNanos != WaitBudget.FOREVER && clock.nanoTime() - deadlineNanos >= 0) {
            complete(false); // its time is up: it ends now, without the permits
            return false;
        }
        return complete(true); // false when it ended first: cancelled, or failed
    }

    private long remainingMillis() {
        if (deadlineNanos == WaitBudget.FOREVER) {
            return Long.MAX_VALUE;
        }
        return TimeUnit.NANOSECONDS.toMillis(deadlineNanos - clock.nanoTime());
    }

    /** Ends the wait with {@code taken} or {@code failure}; whether this call ended it. */
    private boolean end(@Nullable Boolean taken, @Nullable Throwable failure) {
        closeSubscription();
        return failure != null ? completeExceptionally(failure) : complete(taken);
    }

    private void giveBack() {
        attempts.giveBack().whenComplete((ignored, failure) -> {
            if (failure != null) {
                log.warn("{}, taken after its wait ended, could not be given back (channel {})", what, channel, failure);
            }
        });
    }

    /** A failed attempt may have run on Redis: what it took goes back, where that can be told. */
    private void giveBackIfTaken() {
        CompletableFuture<?> given;
        try {
            given = attempts.giveBackIfTaken();
        } catch (RuntimeException e) {
            log.warn("{}: an attempt failed, and what it may have taken could not be given back", what, e);
            return;
        }
        if (given != null) {
            given.whenComplete((ignored, failure) -> {
                if (failure != null) {
                    log.warn("{}: an attempt failed, and what it may have taken could not be given back (channel {})",
                            what, channel, failure);
                }
            });
        }
    }

    private void closeSubscription() {
        WakeUps.Subscription subscribed = subscription;
        if (subscribed != null) {
            subscription = null;
            subscribed.close();
        }
    }
}
