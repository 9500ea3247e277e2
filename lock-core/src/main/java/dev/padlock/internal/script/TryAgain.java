package dev.padlock.internal.script;

import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.base.Timeouts;
import dev.padlock.internal.redis.RedisErrors;
import io.lettuce.core.RedisCommandExecutionException;
import io.netty.util.Timer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * When a script call meets {@code TRYAGAIN}. During a Cluster resharding, a slot is migrating:
 * Redis refuses a call with several keys whose keys are not all on the node it reached (some moved
 * already, or, as with a lock's keys that exist only now and then, absent), without running it.
 * Such a call is sent again after a pause that doubles from {@value #FIRST_PAUSE_MILLIS} ms up to
 * {@value #LONGEST_PAUSE_MILLIS} ms, for at most {@code windowMillis} (the client's command timeout)
 * after its first refusal; then the refusal is the call's failure. {@code MOVED} and {@code ASK}
 * need nothing here: Lettuce follows them itself.
 *
 * <p>Only calls that may run after commands sent later are sent again ({@link ScriptRunner#run});
 * a call that must keep its place ({@link ScriptRunner#runInOrder}: a renewal, a settle) fails at
 * the first refusal, and its caller goes on as after any failure (the watchdog's next round).
 */
final class TryAgain {
    static final long FIRST_PAUSE_MILLIS = 5;
    static final long LONGEST_PAUSE_MILLIS = 200;

    private final Timer timer;
    private final EngineClock clock;
    private final long windowNanos;

    TryAgain(Timer timer, EngineClock clock, long windowMillis) {
        this.timer = timer;
        this.clock = clock;
        this.windowNanos = TimeUnit.MILLISECONDS.toNanos(windowMillis);
    }

    /** Whether {@code failure} is Redis's {@code TRYAGAIN}. */
    static boolean isTryAgain(Throwable failure) {
        Throwable cause = RedisErrors.unwrap(failure);
        return cause instanceof RedisCommandExecutionException && cause.getMessage() != null
                && cause.getMessage().startsWith("TRYAGAIN");
    }

    /** The end of the window of a call refused for the first time now, as a reading of the clock. */
    long deadline() {
        return clock.nanoTime() + windowNanos;
    }

    /**
     * A future that completes when the call refused for the {@code refusals}th time may be sent
     * again, or null when {@code deadline} comes before that.
     */
    @Nullable CompletableFuture<Void> pause(int refusals, long deadline) {
        long pauseMillis = Math.min(LONGEST_PAUSE_MILLIS, FIRST_PAUSE_MILLIS << Math.min(refusals - 1, 16));
        if (clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pauseMillis) - deadline > 0) {
            return null;
        }
        return Timeouts.after(timer, pauseMillis, TimeUnit.MILLISECONDS);
    }
}
