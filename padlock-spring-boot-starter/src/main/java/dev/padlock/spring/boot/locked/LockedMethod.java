package dev.padlock.spring.boot.locked;

import dev.padlock.LockClient;
import dev.padlock.LockLease;
import dev.padlock.RLock;
import dev.padlock.spring.LockNotAcquiredException;
import dev.padlock.spring.Locked;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;

/**
 * One {@link Locked} method, its attributes parsed once (by {@link LockedMethodParser}): the
 * name's expression, the kind, the wait (null: without bound), the lease (zero: watchdog) and the
 * route its return type takes. Evaluates the name and acquires the lock for each call.
 */
final class LockedMethod {
    static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();

    private final Method method;
    private final String nameSource;
    private final Expression name;
    private final Locked.Kind kind;
    private final Duration waitTime; // null: wait without bound
    private final Duration leaseTime;
    private final LockedRoute route;

    LockedMethod(Method method, String nameSource, Expression name, Locked.Kind kind, Duration waitTime,
            Duration leaseTime, LockedRoute route) {
        this.method = method;
        this.nameSource = nameSource;
        this.name = name;
        this.kind = kind;
        this.waitTime = waitTime;
        this.leaseTime = leaseTime;
        this.route = route;
    }

    LockedRoute route() {
        return route;
    }

    /** {@return null when the wait has no bound} */
    Duration waitTime() {
        return waitTime;
    }

    Duration leaseTime() {
        return leaseTime;
    }

    /**
     * The lock's name for one call.
     *
     * @throws IllegalArgumentException when the name is null or blank
     */
    String lockName(Object target, Object[] arguments, BeanFactory beanFactory) {
        MethodBasedEvaluationContext context =
                new MethodBasedEvaluationContext(target, method, arguments, PARAMETER_NAMES);
        context.setBeanResolver(new BeanFactoryResolver(beanFactory));
        Object value = name.getValue(context);
        if (value == null || value.toString().isBlank()) {
            throw new IllegalArgumentException("@Locked on " + describe(method) + ": the name \"" + nameSource
                    + "\" is " + (value == null ? "null" : "blank") + " for these arguments; a lock needs a name");
        }
        return value.toString();
    }

    /** The lock of this kind named {@code lockName}. */
    RLock lockOf(LockClient client, String lockName) {
        return switch (kind) {
            case LOCK -> client.getLock(lockName);
            case FAIR -> client.getFairLock(lockName);
            case READ -> client.getReadWriteLock(lockName).readLock();
            case WRITE -> client.getReadWriteLock(lockName).writeLock();
            case FENCED -> client.getFencedLock(lockName);
        };
    }

    /**
     * Acquires on the calling thread: within the wait, or as long as it takes ({@link RLock#acquire},
     * which keeps an interrupt and goes on waiting).
     *
     * @throws LockNotAcquiredException when the wait ran out or was interrupted (the interrupt kept)
     */
    LockLease acquire(RLock lock) {
        if (waitTime == null) {
            return lock.acquire(leaseTime);
        }
        try {
            return lock.tryAcquire(waitTime, leaseTime).orElseThrow(() -> notAcquired(lock.getName()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockNotAcquiredException(lock.getName(), "The lock '" + lock.getName() + "' of "
                    + describe(method) + " was not acquired: the wait was interrupted", e);
        }
    }

    /**
     * As {@link #acquire}, without blocking: the acquisition itself, so that cancelling it stops
     * the wait; {@link #leaseIn} reads its value.
     */
    CompletableFuture<?> acquireAsync(RLock lock) {
        return waitTime == null ? lock.acquireAsync(leaseTime) : lock.tryAcquireAsync(waitTime, leaseTime);
    }

    /** {@return the lease an {@link #acquireAsync} gave, or null when its wait ran out} */
    static LockLease leaseIn(Object acquired) {
        return acquired instanceof LockLease lease ? lease
                : ((Optional<?>) acquired).map(LockLease.class::cast).orElse(null);
    }

    LockNotAcquiredException notAcquired(String lockName) {
        return new LockNotAcquiredException(lockName, "The lock '" + lockName + "' of " + describe(method)
                + " was not acquired within " + waitTime, null);
    }

    /** {@code OrderService.ship(Order)}: how messages name a method. */
    static String describe(Method method) {
        StringBuilder text = new StringBuilder(method.getDeclaringClass().getName()).append('.')
                .append(method.getName()).append('(');
        Class<?>[] types = method.getParameterTypes();
        for (int i = 0; i < types.length; i++) {
            text.append(i == 0 ? "" : ", ").append(types[i].getSimpleName());
        }
        return text.append(')').toString();
    }
}
