package dev.padlock.spring.boot.locked;

import dev.padlock.LockLease;
import dev.padlock.RLock;
import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.util.ClassUtils;

/**
 * How a {@link dev.padlock.spring.Locked} call holds its lock, chosen once per method from its
 * return type: for the method's run, or until what it returned completes.
 */
enum LockedRoute {
    /** Acquires on the caller's thread, runs the method, releases when it returns or throws. */
    BLOCKING {
        @Override
        Object invoke(MethodInvocation invocation, LockedMethod locked, RLock lock) throws Throwable {
            try (LockLease lease = locked.acquire(lock)) {
                return invocation.proceed();
            }
        }
    },
    /** A {@code CompletionStage} or {@code CompletableFuture}: see {@link LockedStages}. */
    STAGE {
        @Override
        Object invoke(MethodInvocation invocation, LockedMethod locked, RLock lock) {
            return LockedStages.run(invocation, locked, lock);
        }
    },
    /** Reactor's {@code Mono}: see {@link LockedReactor}. */
    MONO {
        @Override
        Object invoke(MethodInvocation invocation, LockedMethod locked, RLock lock) {
            return LockedReactor.mono(invocation, locked, lock);
        }
    },
    /** Reactor's {@code Flux}: see {@link LockedReactor}. */
    FLUX {
        @Override
        Object invoke(MethodInvocation invocation, LockedMethod locked, RLock lock) {
            return LockedReactor.flux(invocation, locked, lock);
        }
    };

    private static final boolean REACTOR =
            ClassUtils.isPresent("reactor.core.publisher.Flux", LockedRoute.class.getClassLoader());
    private static final boolean REACTIVE_STREAMS =
            ClassUtils.isPresent("org.reactivestreams.Publisher", LockedRoute.class.getClassLoader());

    /** Runs the call under {@code lock}; what the method returned, or a stand-in that holds the lock for it. */
    abstract Object invoke(MethodInvocation invocation, LockedMethod locked, RLock lock) throws Throwable;

    /**
     * The route for {@code method}'s return type.
     *
     * @throws IllegalArgumentException for a return type whose completion it cannot follow
     */
    static LockedRoute of(Method method) {
        Class<?> type = method.getReturnType();
        if (type == CompletionStage.class || type == CompletableFuture.class) {
            return STAGE;
        }
        if (CompletionStage.class.isAssignableFrom(type)) {
            throw new IllegalArgumentException("it returns " + type.getName()
                    + ", which @Locked cannot make; declare CompletionStage or CompletableFuture");
        }
        if (REACTOR) {
            LockedRoute reactive = LockedReactor.routeOf(type);
            if (reactive != null) {
                return reactive;
            }
        }
        if (REACTIVE_STREAMS && org.reactivestreams.Publisher.class.isAssignableFrom(type)) {
            throw new IllegalArgumentException("it returns " + type.getName()
                    + "; a reactive @Locked method returns Reactor's Mono or Flux");
        }
        return BLOCKING;
    }
}
