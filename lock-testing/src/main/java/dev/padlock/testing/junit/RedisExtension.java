package dev.padlock.testing.junit;

import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.RedisProvisioner;
import dev.padlock.testing.RedisServerProcess;
import java.lang.reflect.Parameter;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * JUnit 5 extension that provisions one Redis per test class through {@link RedisProvisioner},
 * before all its tests, and stops it after them. {@code @Nested} classes share their enclosing
 * class's server.
 *
 * <p>Resolves parameters of type {@link RedisEndpoint}, {@link RedisAdmin} (one admin
 * connection per class, closed after all) and {@link RedisServerProcess}. A test method with a
 * {@code RedisServerProcess} parameter is disabled when the server is not controllable (an
 * external URI or a container); anywhere else such a parameter fails to resolve.
 *
 * <p>Register it with {@code @ExtendWith(RedisExtension.class)} on the class, or use
 * {@link RedisTest}, whose attributes this extension reads.
 */
public final class RedisExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver,
        ExecutionCondition {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(RedisExtension.class);
    private static final String KEY = "redis";

    @Override
    public void beforeAll(ExtensionContext context) {
        if (find(context).isPresent()) {
            return; // a @Nested class: the enclosing class's server serves it
        }
        Optional<RedisTest> settings = AnnotationSupport.findAnnotation(context.getRequiredTestClass(), RedisTest.class);
        List<String> serverArgs = settings.map(s -> Arrays.asList(s.serverArgs())).orElse(List.of());
        boolean controllable = settings.map(RedisTest::controllable).orElse(false);
        RedisEndpoint endpoint = controllable
                ? RedisProvisioner.provisionControllable(serverArgs)
                : RedisProvisioner.provision(serverArgs);
        context.getStore(NAMESPACE).put(KEY, new ClassServer(endpoint));
    }

    @Override
    public void afterAll(ExtensionContext context) {
        ClassServer server = context.getStore(NAMESPACE).remove(KEY, ClassServer.class);
        if (server != null) {
            server.close();
        }
    }

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (context.getTestMethod().isEmpty()) {
            return ConditionEvaluationResult.enabled("class level");
        }
        boolean needsProcess = Arrays.stream(context.getRequiredTestMethod().getParameterTypes())
                .anyMatch(RedisServerProcess.class::equals);
        Optional<ClassServer> server = find(context);
        if (needsProcess && server.isPresent() && !server.get().endpoint.isControllable()) {
            return ConditionEvaluationResult.disabled("needs a controllable Redis, got "
                    + server.get().endpoint);
        }
        return ConditionEvaluationResult.enabled("Redis available");
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        Class<?> type = parameterContext.getParameter().getType();
        return type == RedisEndpoint.class || type == RedisAdmin.class || type == RedisServerProcess.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        Parameter parameter = parameterContext.getParameter();
        ClassServer server = find(extensionContext).orElseThrow(() -> new ParameterResolutionException(
                "No Redis for " + parameter + ": register RedisExtension on the test class"));
        Class<?> type = parameter.getType();
        if (type == RedisEndpoint.class) {
            return server.endpoint;
        }
        if (type == RedisAdmin.class) {
            return server.admin();
        }
        return server.endpoint.process().orElseThrow(() -> new ParameterResolutionException(
                "Redis " + server.endpoint + " is not controllable; cannot resolve " + parameter));
    }

    /** The endpoint of the class under test, for other extensions and helpers. */
    public static Optional<RedisEndpoint> endpoint(ExtensionContext context) {
        return find(context).map(server -> server.endpoint);
    }

    private static Optional<ClassServer> find(ExtensionContext context) {
        return Optional.ofNullable(context.getStore(NAMESPACE).get(KEY, ClassServer.class));
    }

    /** One class's server and its lazily opened admin connection. */
    private static final class ClassServer {
        private final RedisEndpoint endpoint;
        /** Guarded by {@code this}. */
        private RedisAdmin admin;

        ClassServer(RedisEndpoint endpoint) {
            this.endpoint = endpoint;
        }

        synchronized RedisAdmin admin() {
            if (admin == null) {
                admin = endpoint.admin();
            }
            return admin;
        }

        synchronized void close() {
            try {
                if (admin != null) {
                    admin.close();
                }
            } finally {
                endpoint.close();
            }
        }
    }
}
