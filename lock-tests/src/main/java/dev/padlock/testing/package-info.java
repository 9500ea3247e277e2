/**
 * The Redis test fixture: one place that provisions Redis for the integration tests, the demo
 * and the benchmarks.
 *
 * <p>{@link dev.padlock.testing.RedisProvisioner} picks a server in the order the project
 * requires: an explicit {@code PADLOCK_REDIS_URI}, {@code redis-server} on the {@code PATH}, the
 * binary shipped in the embedded-redis jar, then Testcontainers. Servers started from a binary
 * are {@link dev.padlock.testing.RedisServerProcess}es that a test can stop, kill, restart on the
 * same port, pause and resume. {@link dev.padlock.testing.RedisExtension} (or
 * {@link dev.padlock.testing.RedisTest}) gives each test class its own server.
 */
package dev.padlock.testing;
