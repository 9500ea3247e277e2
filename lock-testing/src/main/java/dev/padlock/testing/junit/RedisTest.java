package dev.padlock.testing.junit;

import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.RedisServerProcess;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks a test class that gets its own Redis from {@link RedisExtension}: one server for the
 * class, started before all its tests and stopped after them. Test methods, constructors and
 * lifecycle methods may take a {@link RedisEndpoint}, a {@link RedisAdmin}, or a
 * {@link RedisServerProcess} (a test method taking one is skipped when the server is not
 * controllable).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(RedisExtension.class)
public @interface RedisTest {

    /**
     * More {@code redis-server} arguments, e.g. {@code {"--cluster-enabled", "yes"}}. When
     * given, an external {@code PADLOCK_REDIS_URI} is not used.
     */
    String[] serverArgs() default {};

    /**
     * Whether the class needs a server it can stop, restart and pause: when true the
     * external URI and Testcontainers are not used.
     */
    boolean controllable() default false;
}
