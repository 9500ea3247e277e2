package dev.padlock.reactor;

import dev.padlock.LeaseLostException;
import dev.padlock.PermitLease;
import dev.padlock.RPermitExpirableSemaphore;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * An {@link RPermitExpirableSemaphore} for Reactor: permits as {@link PermitLease}s, so any
 * scheduler may run any step. Nothing happens until subscription; cancelling a subscription stops
 * a wait, and a permit that lands after the cancel is released.
 *
 * <pre>{@code
 * ReactivePermits partners = ReactivePermits.of(client.getPermitExpirableSemaphore("partner-api"));
 * Flux<Quote> quotes = partners.withPermit(Duration.ofSeconds(5), permit -> partner.quotes(order));
 * }</pre>
 */
public final class ReactivePermits {
    private final RPermitExpirableSemaphore semaphore;

    private ReactivePermits(RPermitExpirableSemaphore semaphore) {
        this.semaphore = semaphore;
    }

    /** The semaphore {@code semaphore} for Reactor. */
    public static ReactivePermits of(RPermitExpirableSemaphore semaphore) {
        return new ReactivePermits(Objects.requireNonNull(semaphore, "semaphore"));
    }

    /** The semaphore this wraps. */
    public RPermitExpirableSemaphore semaphore() {
        return semaphore;
    }

    /** A permit with a lease of {@code leaseTime} ({@link Duration#ZERO}: the watchdog's), waiting as long as it takes. */
    public Mono<PermitLease> acquire(Duration leaseTime) {
        Objects.requireNonNull(leaseTime, "leaseTime");
        return permitOf(() -> semaphore.acquireAsync(leaseTime), Optional::of);
    }

    /** A permit with a lease of {@code leaseTime} taken within {@code waitTime}; empty when the wait ran out. */
    public Mono<PermitLease> tryAcquire(Duration waitTime, Duration leaseTime) {
        Objects.requireNonNull(waitTime, "waitTime");
        Objects.requireNonNull(leaseTime, "leaseTime");
        return permitOf(() -> semaphore.tryAcquireAsync(waitTime, leaseTime), acquired -> acquired);
    }

    /** The permit a wait started at subscription gives; a permit after a cancel is released. */
    private static <T> Mono<PermitLease> permitOf(Supplier<CompletableFuture<T>> start,
            Function<T, Optional<PermitLease>> permitIn) {
        return Mono.<PermitLease>create(sink -> {
            CompletableFuture<T> wait = start.get();
            AtomicBoolean cancelled = new AtomicBoolean();
            sink.onCancel(() -> {
                cancelled.set(true);
                wait.cancel(false);
            });
            wait.whenComplete((acquired, failure) -> {
                Optional<PermitLease> permit = failure == null ? permitIn.apply(acquired) : Optional.empty();
                if (failure != null) {
                    sink.error(failure instanceof CompletionException && failure.getCause() != null
                            ? failure.getCause() : failure);
                } else if (permit.isEmpty()) {
                    sink.success();
                } else if (cancelled.get()) {
                    permit.get().releaseAsync();
                } else {
                    sink.success(permit.get());
                }
            });
        }).doOnDiscard(PermitLease.class, PermitLease::releaseAsync);
    }

    /**
     * Runs the publisher {@code work} makes under a permit with a watchdog lease taken within
     * {@code waitTime}, and gives the permit back when it completes, fails or is cancelled. When
     * the permit is lost, the work's subscription is cancelled and the flux fails with
     * {@link LeaseLostException}. Empty when the wait ran out.
     *
     * <p>The work is subscribed to on the thread that took the permit, a Redis client I/O thread:
     * it must not block there ({@code subscribeOn} a scheduler for blocking work).
     */
    public <T> Flux<T> withPermit(Duration waitTime, Function<? super PermitLease, ? extends Publisher<T>> work) {
        Objects.requireNonNull(work, "work");
        return Flux.usingWhen(tryAcquire(waitTime, Duration.ZERO), permit -> {
            AtomicBoolean lost = new AtomicBoolean();
            Mono<Boolean> losing = Mono.create(sink -> permit.onLost(() -> {
                lost.set(true);
                sink.success(true);
            }));
            return Flux.from(work.apply(permit)).takeUntilOther(losing)
                    .concatWith(Mono.defer(() -> lost.get() ? Mono.error(new LeaseLostException(semaphore.getName(),
                            "(permit " + permit.permitId() + ") was lost")) : Mono.empty()));
        }, ReactivePermits::giveBack, (permit, failure) -> giveBack(permit), ReactivePermits::giveBack);
    }

    private static Mono<Void> giveBack(PermitLease permit) {
        return Mono.fromFuture(permit::releaseAsync).onErrorResume(IllegalStateException.class, lost -> Mono.empty());
    }

    @Override
    public String toString() {
        return "ReactivePermits{" + semaphore.getName() + "}";
    }
}
