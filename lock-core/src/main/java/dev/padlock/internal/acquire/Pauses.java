package dev.padlock.internal.acquire;

import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.base.Timeouts;
import dev.padlock.internal.base.WaitBudget;
import dev.padlock.internal.protocol.LockProtocol;
import io.netty.util.Timer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * What one {@link LockAcquisition}'s loop waits on between two attempts: the spin lock's back-off,
 * the subscription's confirmation, the park until a wake-up or the holder's lease, a pause after a
 * lost reply, the give-back of what an earlier acquisition left. Each is a gate that a cancel or a grant completes early ({@link #arm}); the loop's
 * next attempt runs when a gate that {@link #attemptWhenDone} armed completes.
 */
final class Pauses {
    private final Timer timer;
    private final EngineClock clock;
    private final WaitBudget budget;
    private final Subscriptions subscriptions;
    private final GrantLatch latch;
    private final LockProtocol protocol;
    private final long commandTimeoutMillis;
    private final CompletableFuture<Boolean> result;
    /** The loop's next attempt. */
    private final Runnable attempt;
    /** The spinning wait's back-off; made by its first pause. */
    private @Nullable Backoff spinBackOff;
    /** The wait in progress between two steps, if any; written by the loop, completed early by a cancel or a grant. */
    private volatile @Nullable CompletableFuture<Boolean> parked;

    Pauses(Timer timer, EngineClock clock, WaitBudget budget, Subscriptions subscriptions, GrantLatch latch,
            LockProtocol protocol, long commandTimeoutMillis, CompletableFuture<Boolean> result, Runnable attempt) {
        this.timer = timer;
        this.clock = clock;
        this.budget = budget;
        this.subscriptions = subscriptions;
        this.latch = latch;
        this.protocol = protocol;
        this.commandTimeoutMillis = commandTimeoutMillis;
        this.result = result;
        this.attempt = attempt;
    }

    /**
     * A spinning wait: the next attempt after a back-off with jitter, bounded by the holder's
     * lease and the wait left. Sends nothing but the attempts.
     */
    void backOff(long ttl) {
        if (spinBackOff == null) {
            spinBackOff = new Backoff(LockAcquisition.MIN_BACK_OFF_MILLIS, LockAcquisition.MAX_BACK_OFF_MILLIS);
        }
        long millis = Math.max(1, Math.min(capByLease(spinBackOff.nextWithJitter(clock), ttl), budget.remainingMillis()));
        attemptWhenDone(Timeouts.completeAfter(timer, new CompletableFuture<>(), false, millis, TimeUnit.MILLISECONDS));
    }

    /**
     * Subscribes, then attempts once Redis confirmed or the wait for it ran out.
     *
     * @throws RuntimeException when the subscription cannot be sent (the loop fails with it)
     */
    void subscribeThenAttempt() {
        attemptWhenDone(subscriptions.subscribe(Math.min(budget.remainingMillis(), commandTimeoutMillis)));
    }

    /**
     * Parks until a wake-up, the holder's lease {@code ttl} (none when negative) or the wait left,
     * whichever comes first, then attempts; at once when a wake-up was asked for already.
     */
    void park(long ttl) {
        if (latch.wakeRequested()) {
            attempt.run();
            return;
        }
        long millis = capByLease(Math.min(budget.remainingMillis(), protocol.maxParkMillis()), ttl);
        attemptWhenDone(subscriptions.park(millis));
    }

    /** Runs {@code next} after {@code millis}, or at once on a cancel or a grant: the pause after a lost reply. */
    void pause(long millis, Runnable next) {
        CompletableFuture<Boolean> gate = new CompletableFuture<>();
        Timeouts.completeAfter(timer, gate, false, millis, TimeUnit.MILLISECONDS);
        arm(gate);
        gate.whenComplete((woken, failure) -> next.run());
    }

    /** {@code millis}, at most the holder's lease {@code ttl} (at least 1 ms) when it has one. */
    private static long capByLease(long millis, long ttl) {
        return ttl >= 0 ? Math.min(millis, Math.max(ttl, 1)) : millis;
    }

    /** Attempts again when {@code gate} completes; a cancel completes it early. */
    void attemptWhenDone(CompletableFuture<Boolean> gate) {
        arm(gate);
        gate.whenComplete((woken, failure) -> attempt.run());
    }

    /**
     * Makes {@code gate} the wait in progress: a cancel or a grant that came before it completes
     * it at once ({@link #wake} is called after the latch is set, this reads the latch after
     * setting {@link #parked}, so one of them sees the other).
     */
    void arm(CompletableFuture<Boolean> gate) {
        parked = gate;
        if (result.isCancelled()) {
            gate.complete(false);
        }
        if (latch.wakes()) {
            gate.complete(true);
        }
    }

    /** Ends the wait in progress, if any, with {@code woken}: a grant (true) or a cancel (false). */
    void wake(boolean woken) {
        CompletableFuture<Boolean> park = parked;
        if (park != null) {
            park.complete(woken);
        }
    }

    /**
     * Attempts once the give-back of what this owner's earlier acquisition left (a claim, a place in
     * line: see {@link Abandonments}) is done: an attempt sent before it could be taken back by it.
     * Redis not answering within the bound of {@code lostReplies} runs {@code unanswered} instead.
     */
    void attemptAfterGiveBack(CompletableFuture<Void> giveBack, LostReplies lostReplies, Runnable unanswered) {
        CompletableFuture<Boolean> gate = new CompletableFuture<>();
        giveBack.whenComplete((ignored, failure) -> gate.complete(true));
        Timeouts.completeAfter(timer, gate, false, lostReplies.boundMillisFromNow(), TimeUnit.MILLISECONDS);
        arm(gate);
        gate.whenComplete((done, failure) -> {
            if (giveBack.isDone() || result.isDone()) {
                // a cancelled acquisition registers its give-back as it settles: wait for that too
                CompletableFuture<Void> next = result.isDone() ? null : lostReplies.pendingGiveBack();
                if (next != null && !next.isDone()) {
                    attemptAfterGiveBack(next, lostReplies, unanswered);
                } else {
                    attempt.run();
                }
            } else {
                unanswered.run();
            }
        });
    }
}
