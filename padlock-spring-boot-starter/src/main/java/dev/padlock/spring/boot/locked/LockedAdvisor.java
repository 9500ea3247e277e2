package dev.padlock.spring.boot.locked;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.core.Ordered;

/**
 * The advisor that Spring's auto proxy creator applies to beans with
 * {@link dev.padlock.spring.Locked} methods. Its order puts the lock outside advice of default
 * order such as {@code @Transactional}'s, so that a transaction commits before the lock is released.
 */
final class LockedAdvisor extends AbstractPointcutAdvisor {
    private static final long serialVersionUID = 1L;

    /** Before (outside) advice of the default, lowest, precedence. */
    static final int ORDER = Ordered.LOWEST_PRECEDENCE - 100;

    private final transient LockedMethods pointcut;
    private final transient LockedInterceptor interceptor;

    LockedAdvisor(LockedMethods pointcut, LockedInterceptor interceptor) {
        this.pointcut = pointcut;
        this.interceptor = interceptor;
        setOrder(ORDER);
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public LockedInterceptor getAdvice() {
        return interceptor;
    }
}
