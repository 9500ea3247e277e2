package dev.padlock.reactor;

import dev.padlock.LeaseLostException;
import dev.padlock.LockLease;
import dev.padlock.RLock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * An {@link RLock} for Reactor: leases ({@link LockLease}) instead of thread ownership, so any
 * scheduler may run any step. Nothing happens until subscription; cancelling a subscription
 * stops a wait, and a lease that lands after the cancel is released.
 *
 * <pre>{@code
 * ReactiveLock orders = ReactiveLock.of(client.getLock("orders:42"));
 * Flux<Receipt> receipts = orders.withLock(Duration.ofSeconds(5), lease -> ship(order));
 * }</pre>
 */
public final class ReactiveLock {
    private final RLock lock;

    private ReactiveLock(RLock lock) {
        this.lock = lock;
    }

    /** The lock {@code lock} for Reactor; any kind of lock. */
    public static ReactiveLock of(RLock lock) {
        return new ReactiveLock(Objects.requireNonNull(lock, "lock"));
    }

    /** The lock this wraps. */
    public RLock lock() {
        return lock;
    }

    /** A watchdog lease, waiting as long as it takes: {@link RLock#acquireAsync()}. */
    public Mono<LockLease> acquire() {
        return acquire(Duration.ZERO);
    }

    /** A lease of {@code leaseTime} ({@link Duration#ZERO}: a watchdog lease), waiting as long as it takes. */
    public Mono<LockLease> acquire(Duration leaseTime) {
        Objects.requireNonNull(leaseTime, "leaseTime");
        return leaseOf(() -> lock.acquireAsync(leaseTime), lease -> lease);
    }

    /** A watchdog lease acquired within {@code waitTime}; empty when the wait ran out. */
    public Mono<LockLease> tryAcquire(Duration waitTime) {
        return tryAcquire(waitTime, Duration.ZERO);
    }

    /** A lease of {@code leaseTime} acquired within {@code waitTime}; empty when the wait ran out. */
    public Mono<LockLease> tryAcquire(Duration waitTime, Duration leaseTime) {
        Objects.requireNonNull(waitTime, "waitTime");
        Objects.requireNonNull(leaseTime, "leaseTime");
        return leaseOf(() -> lock.tryAcquireAsync(waitTime, leaseTime), acquired -> acquired.orElse(null));
    }

    /**
     * The lease an acquisition started at subscription gives. A cancel stops the wait; a lease
     * that lands after the cancel, or is dropped by a cancel that races its delivery, is released.
     */
    private static <T> Mono<LockLease> leaseOf(Supplier<CompletableFuture<T>> start, Function<T, LockLease> leaseIn) {
        return Mono.<LockLease>create(sink -> {
            CompletableFuture<T> acquisition = start.get(); // cancelled itself: a stage made from it would not stop it
            AtomicBoolean cancelled = new AtomicBoolean();
            sink.onCancel(() -> {
                cancelled.set(true);
                acquisition.cancel(false);
            });
            acquisition.whenComplete((acquired, failure) -> {
                LockLease lease = failure == null ? leaseIn.apply(acquired) : null;
                if (failure != null) {
                    sink.error(unwrap(failure));
                } else if (lease == null) {
                    sink.success();
                } else if (cancelled.get()) {
                    lease.releaseAsync();
                } else {
                    sink.success(lease);
                }
            });
        }).doOnDiscard(LockLease.class, LockLease::releaseAsync);
    }

    private static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    /**
     * Runs the publisher {@code work} makes under a watchdog lease acquired within
     * {@code waitTime}, and releases the lease when it completes, fails or is cancelled. When the
     * lease is lost, or could run out with no renewal answered ({@link RLock#withLockAsync}), the
     * work's subscription is cancelled and the flux fails with {@link LeaseLostException}. Empty
     * when the wait ran out. Errors reach the subscriber after the release.
     *
     * <p>The work is subscribed to on the thread that acquired the lease, a Redis client I/O
     * thread: it must not block there ({@code subscribeOn} a scheduler for blocking work).
     */
    public <T> Flux<T> withLock(Duration waitTime, Function<? super LockLease, ? extends Publisher<T>> work) {
        Objects.requireNonNull(waitTime, "waitTime");
        Objects.requireNonNull(work, "work");
        return Flux.create(sink -> {
            CompletableFuture<Optional<Void>> run = lock.withLockAsync(waitTime, lease -> {
                CompletableFuture<Void> done = new CompletableFuture<>();
                Disposable inner = Flux.from(work.apply(lease))
                        .subscribe(sink::next, done::completeExceptionally, () -> done.complete(null));
                done.whenComplete((ignored, failure) -> {
                    if (done.isCancelled()) {
                        inner.dispose();
                    }
                });
                return done;
            });
            run.whenComplete((ran, failure) -> {
                if (failure == null) {
                    sink.complete();
                } else if (!(failure instanceof CancellationException)) {
                    sink.error(unwrap(failure));
                }
            });
            sink.onDispose(() -> run.cancel(false));
        });
    }

    /**
     * As {@link #withLock}, for work whose values are not needed (a {@code Mono<Void>}, say), where
     * an empty flux could not tell whether the work ran: true once the work's publisher completed
     * under the lease and the lease was released; false when the wait ran out and the work was
     * never subscribed to. Its values are dropped. A lost lease cancels the work and the mono
     * fails with {@link LeaseLostException}; a failure of the work reaches the subscriber after the
     * release; cancelling the subscription stops the wait or cancels the work. The work is
     * subscribed to on a Redis client I/O thread, as for {@code withLock}.
     */
    public Mono<Boolean> runWithLock(Duration waitTime, Function<? super LockLease, ? extends Publisher<?>> work) {
        Objects.requireNonNull(work, "work");
        return withLock(waitTime, lease -> Flux.from(work.apply(lease)).then(Mono.just(Boolean.TRUE)))
                .last(Boolean.FALSE);
    }

    @Override
    public String toString() {
        return "ReactiveLock{" + lock.getName() + "}";
    }
}
