package dev.padlock.spring.boot.locked;

import dev.padlock.LockClient;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Runs each {@link dev.padlock.spring.Locked} call under its lock: evaluates the name, takes the
 * lock of the method's kind from the application's {@link LockClient}, and hands the call to the
 * method's {@link LockedRoute}. The client is looked up at the first call, not when the advisor
 * is made (early, among the post-processors), so that it and its observers are made as any bean.
 */
final class LockedInterceptor implements MethodInterceptor {
    private final LockedMethods methods;
    private final ObjectProvider<LockClient> client;
    private final BeanFactory beanFactory;

    LockedInterceptor(LockedMethods methods, ObjectProvider<LockClient> client, BeanFactory beanFactory) {
        this.methods = methods;
        this.client = client;
        this.beanFactory = beanFactory;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = target == null ? invocation.getMethod().getDeclaringClass() : AopUtils.getTargetClass(target);
        LockedMethod locked = methods.find(invocation.getMethod(), targetClass);
        if (locked == null) {
            return invocation.proceed();
        }
        String name = locked.lockName(target, invocation.getArguments(), beanFactory);
        return locked.route().invoke(invocation, locked, locked.lockOf(client.getObject(), name));
    }
}
