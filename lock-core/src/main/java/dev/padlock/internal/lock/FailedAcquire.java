package dev.padlock.internal.lock;

import dev.padlock.internal.acquire.PendingAcquire;
import java.util.concurrent.CompletableFuture;

/** An acquisition that failed before anything was sent: its failure was known at the start. */
record FailedAcquire(CompletableFuture<Boolean> result) implements PendingAcquire {

    static FailedAcquire of(Throwable failure) {
        return new FailedAcquire(CompletableFuture.failedFuture(failure));
    }

    @Override
    public CompletableFuture<Void> settled() {
        return CompletableFuture.completedFuture(null);
    }
}
