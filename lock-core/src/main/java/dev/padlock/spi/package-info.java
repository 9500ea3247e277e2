/**
 * What Padlock's own integrations and tools ({@code lock-shedlock}, the Spring Boot starter,
 * the {@code padlock} command) need beyond {@code dev.padlock}: the names of a lock's keys and
 * channels ({@link dev.padlock.spi.LockKeys}), a way to Redis that runs scripts and plain commands
 * with a client's connections and error messages ({@link dev.padlock.spi.RedisAccess},
 * {@link dev.padlock.spi.RedisConnection}), and the library's version
 * ({@link dev.padlock.spi.PadlockInfo}).
 *
 * <p>A service provider interface: public so that modules outside {@code lock-core} never import
 * {@code dev.padlock.internal}, stable within a minor version, and not needed to use locks.
 */
@NullMarked
package dev.padlock.spi;

import org.jspecify.annotations.NullMarked;
