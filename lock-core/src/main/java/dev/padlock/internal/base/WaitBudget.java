package dev.padlock.internal.base;

import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * How long an acquisition may wait, taken once when it starts: one attempt (a wait of zero or
 * less), a deadline on the engine's clock, or no bound ({@link #FOREVER}, or anything above a
 * quarter of it, so adding to it cannot overflow).
 */
public final class WaitBudget {
    /** A wait without deadline. */
    public static final long FOREVER = Long.MAX_VALUE;

    /** The clock of the budgets without deadline, which never read one. */
    private static final EngineClock UNREAD = new EngineClock() {
        @Override
        public long nanoTime() {
            throw new IllegalStateException("a wait without deadline reads no clock");
        }

        @Override
        public long currentTimeMillis() {
            throw new IllegalStateException("a wait without deadline reads no clock");
        }
    };
    /** The budgets that read no clock, shared: most acquisitions have one of them. */
    private static final WaitBudget UNBOUNDED = new WaitBudget(UNREAD, FOREVER);
    private static final WaitBudget ONE_ATTEMPT = new WaitBudget(UNREAD, 0);

    private final EngineClock clock;
    private final boolean forever;
    private final boolean oneAttempt;
    private final long deadlineNanos;

    private WaitBudget(EngineClock clock, long waitNanos) {
        this.clock = clock;
        this.forever = waitNanos >= FOREVER / 4;
        this.oneAttempt = waitNanos <= 0;
        this.deadlineNanos = forever || oneAttempt ? 0 : clock.nanoTime() + waitNanos;
    }

    /** A budget of {@code waitNanos} from now. */
    public static WaitBudget of(long waitNanos, EngineClock clock) {
        if (waitNanos >= FOREVER / 4) {
            return UNBOUNDED;
        }
        return waitNanos <= 0 ? ONE_ATTEMPT : new WaitBudget(clock, waitNanos);
    }

    public boolean forever() {
        return forever;
    }

    /** Whether the wait is a single attempt. */
    public boolean oneAttempt() {
        return oneAttempt;
    }

    /** Whether no wait is left: always for one attempt, never for no bound. */
    public boolean spent() {
        return !forever && (oneAttempt || deadlineNanos - clock.nanoTime() <= 0);
    }

    /** The wait left in nanoseconds, {@link #FOREVER} without bound, 0 once spent. */
    public long remainingNanos() {
        if (forever) {
            return FOREVER;
        }
        return oneAttempt ? 0 : Math.max(0, deadlineNanos - clock.nanoTime());
    }

    /** The wait left in milliseconds, rounded up; {@link Long#MAX_VALUE} without bound. */
    public long remainingMillis() {
        long nanos = remainingNanos();
        return forever ? Long.MAX_VALUE : TimeUnit.NANOSECONDS.toMillis(nanos + 999_999);
    }

    /**
     * How long, from {@code sinceNanos}, calls Redis does not answer may go on: to the end of the
     * wait plus {@code graceMillis}, or {@code graceMillis} alone without bound.
     */
    public long boundMillisFrom(long sinceNanos, long graceMillis) {
        if (forever) {
            return graceMillis;
        }
        long left = oneAttempt ? 0 : Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - sinceNanos));
        return left + graceMillis;
    }
}
