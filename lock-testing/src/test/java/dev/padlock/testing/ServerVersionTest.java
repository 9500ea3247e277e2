package dev.padlock.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.padlock.testing.ServerVersion.Product;
import org.junit.jupiter.api.Test;

class ServerVersionTest {

    @Test
    void readsRedis() {
        ServerVersion redis = ServerVersion.parse(
                "Redis server v=7.0.15 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64 build=ae4d7c971a948f0\n");

        assertEquals(new ServerVersion(Product.REDIS, "7.0.15"), redis);
        assertEquals(7, redis.major());
        assertEquals(7, redis.redisMajor());
        assertEquals("redis-server 7.0.15", redis.describe());
        assertEquals("Redis 7.0.15", redis.toString());
    }

    @Test
    void readsValkeyAsItsOwnVersionWithRedis7Features() {
        ServerVersion valkey = ServerVersion.parse(
                "Valkey server v=8.0.1 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64 build=39f7c371e0a96e3d");

        assertEquals(new ServerVersion(Product.VALKEY, "8.0.1"), valkey);
        assertEquals(8, valkey.major());
        assertEquals(7, valkey.redisMajor(), "Valkey offers Redis 7.2's commands and reports redis_version 7.2.4");
        assertEquals("valkey-server 8.0.1", valkey.describe());
        assertEquals("Valkey 8.0.1", valkey.toString());
    }

    @Test
    void readsTheEmbeddedRedis62AndABareVersion() {
        assertEquals(new ServerVersion(Product.REDIS, "6.2.11"), ServerVersion.parse(
                "Redis server v=6.2.11 sha=00000000:0 malloc=libc bits=64 build=2ee2c9b3b8e0bb4b"));
        assertEquals(6, ServerVersion.parse("Redis server v=6.2.11 sha=0").redisMajor());
        assertEquals(new ServerVersion(Product.REDIS, "5.0.7"), ServerVersion.parse("v=5.0.7 sha=0"));
    }

    @Test
    void refusesOutputWithoutAVersion() {
        assertThrows(IllegalArgumentException.class, () -> ServerVersion.parse("command not found"));
        assertThrows(IllegalStateException.class, () -> new ServerVersion(Product.REDIS, "unstable").major());
    }
}
