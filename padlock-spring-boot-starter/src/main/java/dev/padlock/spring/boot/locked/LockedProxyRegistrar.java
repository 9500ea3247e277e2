package dev.padlock.spring.boot.locked;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Makes sure an auto proxy creator exists, so that {@link LockedAdvisor} is applied even where
 * Spring Boot's {@code AopAutoConfiguration} is off ({@code spring.aop.auto=false}) or absent: as
 * {@code @EnableTransactionManagement} does, it registers Spring's infrastructure one only when
 * none is there, and never downgrades one (an AspectJ-aware creator also applies the advisor).
 */
final class LockedProxyRegistrar implements ImportBeanDefinitionRegistrar {
    @Override
    public void registerBeanDefinitions(AnnotationMetadata importingClassMetadata, BeanDefinitionRegistry registry) {
        AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
    }
}
