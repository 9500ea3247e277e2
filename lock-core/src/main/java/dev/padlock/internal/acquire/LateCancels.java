package dev.padlock.internal.acquire;

import dev.padlock.internal.redis.RedisErrors;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Links a caller's future to its acquisition: cancelling the future cancels the acquisition, and
 * a cancel that came too late (the lock was acquired, see {@link PendingAcquire#cancelTooLate})
 * gives the hold back, since the caller, told its call was cancelled, will not unlock it.
 */
public final class LateCancels {
    private static final Logger log = LoggerFactory.getLogger(LateCancels.class);

    private LateCancels() {
    }

    /**
     * @param unlock releases the hold the acquisition got (the lock's {@code unlockAsync} for its owner)
     * @param what the lock and owner, for the warning when the give-back fails (the lease then ends the hold)
     */
    public static void link(CompletableFuture<?> caller, PendingAcquire acquisition,
            Supplier<CompletableFuture<Void>> unlock, Supplier<String> what) {
        caller.whenComplete((value, failure) -> {
            if (caller.isCancelled() && acquisition.cancelTooLate()) {
                giveBack(unlock, what);
            }
        });
    }

    private static void giveBack(Supplier<CompletableFuture<Void>> unlock, Supplier<String> what) {
        CompletableFuture<Void> release;
        try {
            release = unlock.get();
        } catch (RuntimeException e) {
            release = CompletableFuture.failedFuture(e);
        }
        release.whenComplete((ignored, failure) -> {
            if (failure != null) {
                log.warn("could not give back {}, acquired as its caller cancelled; its lease will end it: {}",
                        what.get(), RedisErrors.unwrap(failure).toString());
            }
        });
    }
}
