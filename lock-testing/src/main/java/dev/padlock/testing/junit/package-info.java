/**
 * JUnit 5 support for the Redis fixture: {@link dev.padlock.testing.junit.RedisTest} on a test
 * class gives it its own Redis for all its tests, and {@link dev.padlock.testing.junit.RedisExtension}
 * injects {@link dev.padlock.testing.RedisEndpoint}, {@link dev.padlock.testing.RedisAdmin} and
 * {@link dev.padlock.testing.RedisServerProcess} parameters.
 *
 * <p>The only package of {@code lock-testing} that needs JUnit: {@code junit-jupiter-api} is an
 * optional dependency, which a test that uses this package has on its class path already.
 */
package dev.padlock.testing.junit;
