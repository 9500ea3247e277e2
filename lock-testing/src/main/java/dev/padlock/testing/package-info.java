/**
 * The Redis test fixture: real {@code redis-server} processes for tests, the demo and the
 * benchmarks, without Docker when a binary is at hand (as {@code curator-test} is for ZooKeeper).
 *
 * <p>{@link dev.padlock.testing.RedisProvisioner} picks a server in this order: an explicit
 * {@code PADLOCK_REDIS_URI}, {@code redis-server} on the {@code PATH}, the binary shipped in the
 * embedded-redis jar, then Testcontainers; {@code PADLOCK_REDIS_BINARY} (or
 * {@code -Dpadlock.redis.binary}) {@code embedded} skips the {@code PATH}, and {@code valkey}
 * runs {@code valkey-server} from it instead ({@link dev.padlock.testing.RedisBinary}). Servers
 * started from a binary are {@link dev.padlock.testing.RedisServerProcess}es that a test can stop,
 * kill, restart on the same port, pause and resume, each on a free loopback port and stopped by
 * its own PID.
 * {@link dev.padlock.testing.RedisCluster}, {@link dev.padlock.testing.RedisSentinelSetup} and
 * {@link dev.padlock.testing.TlsCertificates} build the other topologies;
 * {@link dev.padlock.testing.ChildJvm} starts worker JVMs on this JVM's class path. JUnit 5
 * support lives in {@code dev.padlock.testing.junit}; nothing else here needs a test library.
 */
package dev.padlock.testing;
