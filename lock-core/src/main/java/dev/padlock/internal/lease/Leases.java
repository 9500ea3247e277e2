package dev.padlock.internal.lease;

import dev.padlock.LeaseFactory;
import dev.padlock.LockLease;
import dev.padlock.RLock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The {@link LeaseFactory} of any {@link RLock}, through its owner-id methods: what the lease
 * methods of {@code RLock} do. The public API's lease and wait are read here, at its edge, into the
 * engine's milliseconds ({@link LeaseMillis}); {@link LeaseAcquisition} acquires and waits, {@link LeasedWork} runs work
 * under a lease.
 */
public final class Leases implements LeaseFactory {
    private final RLock lock;

    private Leases(RLock lock) {
        this.lock = lock;
    }

    /** The lease factory of {@code lock}: what its {@link RLock#leases()} returns. */
    public static LeaseFactory of(RLock lock) {
        return new Leases(Objects.requireNonNull(lock, "lock"));
    }

    @Override
    public LockLease acquire(Duration leaseTime) {
        return LeaseAcquisition.awaitUninterruptibly(acquireAsync(leaseTime), "acquire of '" + lock.getName() + "'");
    }

    @Override
    public Optional<LockLease> tryAcquire(Duration waitTime, Duration leaseTime) throws InterruptedException {
        long waitMillis = waitMillis(waitTime);
        long leaseMillis = LeaseMillis.of(leaseTime);
        if (Thread.interrupted()) {
            throw new InterruptedException("tryAcquire of '" + lock.getName() + "'");
        }
        return LeaseAcquisition.await(lock, waitMillis, LeaseAcquisition.acquire(lock, waitMillis, leaseMillis),
                "tryAcquire of '" + lock.getName() + "'");
    }

    @Override
    public CompletableFuture<LockLease> acquireAsync(Duration leaseTime) {
        return LeaseAcquisition.acquireUnbounded(lock, LeaseMillis.of(leaseTime));
    }

    @Override
    public CompletableFuture<Optional<LockLease>> tryAcquireAsync(Duration waitTime, Duration leaseTime) {
        long waitMillis = waitMillis(waitTime);
        return LeaseAcquisition.acquire(lock, waitMillis, LeaseMillis.of(leaseTime));
    }

    @Override
    public <T extends @Nullable Object> Optional<T> withLock(Duration waitTime,
            Function<? super LockLease, ? extends T> work) throws InterruptedException {
        Objects.requireNonNull(work, "work");
        return LeasedWork.withLock(tryAcquire(waitTime, Duration.ZERO), work);
    }

    @Override
    public boolean runWithLock(Duration waitTime, Consumer<? super LockLease> work) throws InterruptedException {
        Objects.requireNonNull(work, "work");
        return LeasedWork.runWithLock(tryAcquire(waitTime, Duration.ZERO), work);
    }

    @Override
    public <T extends @Nullable Object> CompletableFuture<Optional<T>> withLockAsync(Duration waitTime,
            Function<? super LockLease, ? extends CompletionStage<T>> work) {
        Objects.requireNonNull(work, "work");
        return LeasedWork.withLockAsync(tryAcquireAsync(waitTime, Duration.ZERO), work);
    }

    @Override
    public <T extends @Nullable Object> CompletableFuture<Boolean> runWithLockAsync(Duration waitTime,
            Function<? super LockLease, ? extends CompletionStage<T>> work) {
        Objects.requireNonNull(work, "work");
        return LeasedWork.runWithLockAsync(tryAcquireAsync(waitTime, Duration.ZERO), work);
    }

    @Override
    public <T extends @Nullable Object> CompletableFuture<T> withLockAsync(
            Function<? super LockLease, ? extends CompletionStage<T>> work) {
        Objects.requireNonNull(work, "work");
        CompletableFuture<Optional<T>> ran = LeasedWork.withLockAsync(
                LeaseAcquisition.acquire(lock, LeaseAcquisition.FOREVER, LeaseMillis.WATCHDOG), work);
        return cancelling(ran, ran.thenApply(value -> value.orElse(null)));
    }

    /** {@code mapped}, whose cancel also cancels {@code source}. */
    private static <T> CompletableFuture<T> cancelling(CompletableFuture<?> source, CompletableFuture<T> mapped) {
        mapped.whenComplete((value, failure) -> {
            if (mapped.isCancelled()) {
                source.cancel(false);
            }
        });
        return mapped;
    }

    /** The wait {@code waitTime} asks for, in milliseconds (a part of one counts as one). */
    public static long waitMillis(Duration waitTime) {
        Objects.requireNonNull(waitTime, "waitTime");
        if (waitTime.isNegative()) {
            throw new IllegalArgumentException("waitTime must not be negative, was " + waitTime);
        }
        return waitTime.isZero() ? 0 : Math.max(1, saturatedMillis(waitTime));
    }

    private static long saturatedMillis(Duration duration) {
        try {
            return duration.toMillis();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE / 2;
        }
    }

    @Override
    public String toString() {
        return "Leases{" + lock.getName() + "}";
    }
}
