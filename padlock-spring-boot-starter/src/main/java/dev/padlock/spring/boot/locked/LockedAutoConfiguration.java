package dev.padlock.spring.boot.locked;

import dev.padlock.LockClient;
import dev.padlock.spring.boot.PadlockAutoConfiguration;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;

/**
 * Annotation locking: {@link dev.padlock.spring.Locked} methods of the application's beans run
 * under their lock, taken from the {@link LockClient} bean. On when Spring AOP is on the class path
 * (it is, with Spring Boot), unless {@code padlock.locked.enabled=false}; AspectJ is not needed.
 * Spring Boot's {@code AopAutoConfiguration} makes the proxies (class proxies by default); where
 * it is off, an infrastructure auto proxy creator is registered ({@link LockedProxyRegistrar}).
 */
@AutoConfiguration(after = PadlockAutoConfiguration.class,
        afterName = "org.springframework.boot.autoconfigure.aop.AopAutoConfiguration")
@ConditionalOnClass(name = {"org.springframework.aop.Advisor", "dev.padlock.LockClient"})
@ConditionalOnProperty(prefix = "padlock.locked", name = "enabled", matchIfMissing = true)
@Import(LockedProxyRegistrar.class)
public class LockedAutoConfiguration {

    /** Static and infrastructure: made among the post-processors, before this class or the client. */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static LockedAdvisor padlockLockedAdvisor(ObjectProvider<LockClient> client, BeanFactory beanFactory) {
        LockedMethods methods = new LockedMethods();
        return new LockedAdvisor(methods, new LockedInterceptor(methods, client, beanFactory));
    }
}
