package dev.padlock.spring.boot.locked;

import dev.padlock.spring.Locked;
import java.lang.reflect.Method;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;

/**
 * The {@link Locked} methods of each bean class, parsed the first time the class is seen, which
 * is when its bean is created: a bad attribute then fails that bean's creation, and so the
 * application's startup (a lazy bean's, at its first use). As a pointcut it matches those methods,
 * and only classes that have one.
 */
final class LockedMethods extends StaticMethodMatcherPointcut {
    private final Map<Class<?>, Map<Method, LockedMethod>> byClass = new ConcurrentHashMap<>();

    LockedMethods() {
        setClassFilter(type -> !of(type).isEmpty());
    }

    @Override
    public boolean matches(Method method, Class<?> targetClass) {
        return find(method, targetClass) != null;
    }

    /** {@return the parsed {@link Locked} method {@code method} calls on {@code targetClass}, or null} */
    LockedMethod find(Method method, Class<?> targetClass) {
        Map<Method, LockedMethod> methods = of(targetClass);
        LockedMethod found = methods.get(method);
        return found != null || methods.isEmpty() ? found
                : methods.get(AopUtils.getMostSpecificMethod(method, ClassUtils.getUserClass(targetClass)));
    }

    /**
     * @throws IllegalStateException for a bad attribute of one of the class's {@link Locked} methods
     */
    private Map<Method, LockedMethod> of(Class<?> type) {
        Class<?> userClass = ClassUtils.getUserClass(type);
        return byClass.computeIfAbsent(userClass, LockedMethods::parse);
    }

    private static Map<Method, LockedMethod> parse(Class<?> type) {
        if (!AnnotationUtils.isCandidateClass(type, Locked.class)) {
            return Map.of();
        }
        Map<Method, Locked> annotated = MethodIntrospector.selectMethods(type,
                (MethodIntrospector.MetadataLookup<Locked>) method ->
                        AnnotatedElementUtils.findMergedAnnotation(method, Locked.class));
        Map<Method, LockedMethod> parsed = new LinkedHashMap<>();
        annotated.forEach((method, locked) -> parsed.put(method, LockedMethodParser.parse(method, locked)));
        return parsed.isEmpty() ? Map.of() : Map.copyOf(parsed);
    }
}
