package dev.padlock.spring.boot;

import java.util.Optional;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

/**
 * Which of Padlock's Spring Integration lock registries fits the Spring Integration an application
 * runs on, told by class names alone (nothing here loads a class of either line):
 * {@code dev.padlock.spring.integration.PadlockLockRegistry} (module
 * {@code lock-spring-integration}) on Spring Integration 7, which has {@code DistributedLock};
 * {@code dev.padlock.spring.integration6.PadlockLockRegistry6} ({@code lock-spring-integration6}) on
 * 6.5, which has {@code LockRequestHandlerAdvice} but no {@code DistributedLock}. When a Padlock
 * registry module is there but cannot serve the line found, {@link #whyNoRegistry(ClassLoader)}
 * says so in one line, which the auto-configuration logs.
 */
final class SpringIntegrationLine {
    static final String LOCK_REGISTRY = "org.springframework.integration.support.locks.LockRegistry";
    /** Spring Integration 7 and later. */
    static final String DISTRIBUTED_LOCK = "org.springframework.integration.support.locks.DistributedLock";
    /** Spring Integration 6.5 and later. */
    static final String SINCE_6_5 = "org.springframework.integration.handler.advice.LockRequestHandlerAdvice";
    static final String REGISTRY_7 = "dev.padlock.spring.integration.PadlockLockRegistry";
    static final String REGISTRY_6 = "dev.padlock.spring.integration6.PadlockLockRegistry6";

    private SpringIntegrationLine() {
    }

    /**
     * Why no Padlock lock registry is configured although Spring Integration and a Padlock registry
     * module are on the class path; empty when one is configured, or when the application has no
     * Padlock registry module or no Spring Integration (then nothing was asked for).
     */
    static Optional<String> whyNoRegistry(ClassLoader classLoader) {
        boolean registry7 = present(REGISTRY_7, classLoader);
        boolean registry6 = present(REGISTRY_6, classLoader);
        if (!present(LOCK_REGISTRY, classLoader) || !(registry7 || registry6)) {
            return Optional.empty();
        }
        String found = "Spring Integration " + version(classLoader);
        if (present(DISTRIBUTED_LOCK, classLoader)) {
            return registry7 ? Optional.empty() : Optional.of("Padlock: no Spring Integration lock registry configured: "
                    + found + " is on the class path, and dev.padlock:lock-spring-integration6 (PadlockLockRegistry6) "
                    + "is for Spring Integration 6.5; for 7 use dev.padlock:lock-spring-integration (PadlockLockRegistry)");
        }
        if (!present(SINCE_6_5, classLoader)) {
            return Optional.of("Padlock: no Spring Integration lock registry configured: " + found
                    + " is older than 6.5, the oldest line Padlock's registries support (Spring Boot 3.5's)");
        }
        return registry6 ? Optional.empty() : Optional.of("Padlock: no Spring Integration lock registry configured: "
                + "dev.padlock:lock-spring-integration (PadlockLockRegistry) needs Spring Integration 7 (Spring Boot 4), "
                + "and the class path has " + found + "; on 6.5 (Spring Boot 3.5) use dev.padlock:lock-spring-integration6 "
                + "(PadlockLockRegistry6)");
    }

    private static boolean present(String className, ClassLoader classLoader) {
        return ClassUtils.isPresent(className, classLoader);
    }

    /** The version in Spring Integration's jar manifest, or "(version unknown)". */
    private static String version(ClassLoader classLoader) {
        try {
            Package found = ClassUtils.forName(LOCK_REGISTRY, classLoader).getPackage();
            String version = found == null ? null : found.getImplementationVersion();
            return version == null ? "(version unknown)" : version;
        } catch (ClassNotFoundException | LinkageError e) {
            return "(version unknown)";
        }
    }

    /** Matches when {@link #whyNoRegistry} has something to say. */
    static final class NoRegistry implements Condition {
        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return whyNoRegistry(context.getClassLoader()).isPresent();
        }
    }
}
