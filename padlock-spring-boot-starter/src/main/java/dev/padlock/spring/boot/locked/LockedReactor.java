package dev.padlock.spring.boot.locked;

import dev.padlock.LockLease;
import dev.padlock.RLock;
import dev.padlock.reactor.ReactiveLock;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.ProxyMethodInvocation;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The {@code Mono} and {@code Flux} routes, loaded only when Reactor is on the class path: each
 * subscription acquires a lease ({@link ReactiveLock}: a cancel stops the wait, a lease landing
 * after it is released), then invokes the method and subscribes to what it returned, on the
 * thread that acquired the lease (a Redis client thread: the method must not block), and
 * releases the lease when that completes, fails or is cancelled (Reactor's {@code usingWhen}).
 * A wait that runs out fails the subscription with
 * {@link dev.padlock.spring.LockNotAcquiredException}; the method is not invoked.
 */
final class LockedReactor {
    private LockedReactor() {
    }

    /** {@return the route for a method returning {@code type}, null when it is neither Mono nor Flux} */
    static LockedRoute routeOf(Class<?> type) {
        if (type == Mono.class) {
            return LockedRoute.MONO;
        }
        return type == Flux.class ? LockedRoute.FLUX : null;
    }

    static Mono<Object> mono(MethodInvocation invocation, LockedMethod locked, RLock lock) {
        return Mono.usingWhen(acquire(locked, lock), lease -> Mono.from(body(invocation)),
                LockedReactor::release, (lease, failure) -> release(lease), LockedReactor::release);
    }

    static Flux<Object> flux(MethodInvocation invocation, LockedMethod locked, RLock lock) {
        return Flux.usingWhen(acquire(locked, lock), lease -> body(invocation),
                LockedReactor::release, (lease, failure) -> release(lease), LockedReactor::release);
    }

    private static Mono<LockLease> acquire(LockedMethod locked, RLock lock) {
        ReactiveLock reactive = ReactiveLock.of(lock);
        Mono<LockLease> lease = locked.waitTime() == null ? reactive.acquire(locked.leaseTime())
                : reactive.tryAcquire(locked.waitTime(), locked.leaseTime());
        return lease.switchIfEmpty(Mono.error(() -> locked.notAcquired(lock.getName())));
    }

    /** The method's publisher, one invocation per subscription (through a clone of the invocation). */
    @SuppressWarnings("unchecked")
    private static Flux<Object> body(MethodInvocation invocation) {
        MethodInvocation call = invocation instanceof ProxyMethodInvocation proxied ? proxied.invocableClone() : invocation;
        Object returned;
        try {
            returned = call.proceed();
        } catch (Throwable failure) {
            return Flux.error(failure);
        }
        return returned == null ? Flux.empty() : Flux.from((org.reactivestreams.Publisher<Object>) returned);
    }

    private static Mono<Void> release(LockLease lease) {
        return Mono.fromFuture(() -> LockedStages.release(lease));
    }
}
