package dev.padlock.testing;

import dev.padlock.testing.junit.RedisTest;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

@RedisTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisExtensionTest {

    private RedisEndpoint classEndpoint;

    @BeforeAll
    void rememberEndpoint(RedisEndpoint endpoint) {
        classEndpoint = endpoint;
    }

    @Test
    void injectsOneEndpointPerClass(RedisEndpoint endpoint, RedisAdmin admin) {
        assertSame(classEndpoint, endpoint);
        assertEquals(endpoint.uri(), admin.uri());
        assertTrue(admin.ping());
    }

    @Test
    void adminSeesKeys(RedisAdmin admin) {
        admin.flushAll();
        admin.commands().set("padlock:test", "1");
        assertEquals(java.util.List.of("padlock:test"), admin.keys());
        admin.flushAll();
    }

    @Test
    void injectsTheProcessWhenControllable(RedisEndpoint endpoint, RedisServerProcess process) {
        assertTrue(endpoint.isControllable());
        assertSame(process, endpoint.requireProcess());
        assertTrue(process.isRunning());
    }

    @Nested
    class NestedClasses {
        @Test
        void shareTheEnclosingServer(RedisEndpoint endpoint) {
            assertSame(classEndpoint, endpoint);
        }
    }
}
