package dev.padlock.sim.engine;

import io.lettuce.core.RedisFuture;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Lettuce's {@link RedisFuture} as a plain future that the simulated network completes. */
final class SimFuture<T> extends CompletableFuture<T> implements RedisFuture<T> {
    private volatile String error;

    void fail(Throwable failure) {
        error = failure.getMessage();
        completeExceptionally(failure);
    }

    @Override
    public String getError() {
        return error;
    }

    @Override
    public boolean await(long timeout, TimeUnit unit) {
        if (!isDone()) {
            throw new IllegalStateException("a simulated command cannot be waited for: the simulation runs on one thread");
        }
        return true;
    }
}
