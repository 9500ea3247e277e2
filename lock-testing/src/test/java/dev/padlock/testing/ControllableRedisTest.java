package dev.padlock.testing;

import dev.padlock.testing.junit.RedisTest;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

@RedisTest(controllable = true, serverArgs = {"--maxmemory-policy", "volatile-lru"})
class ControllableRedisTest {

    @Test
    void getsAProcessWithTheServerArguments(RedisEndpoint endpoint, RedisServerProcess process, RedisAdmin admin) {
        assertTrue(endpoint.source().isControllable());
        assertEquals("volatile-lru", admin.commands().configGet("maxmemory-policy").get("maxmemory-policy"));

        process.restart();

        assertTrue(admin.ping());
        assertEquals("volatile-lru", admin.commands().configGet("maxmemory-policy").get("maxmemory-policy"));
    }
}
