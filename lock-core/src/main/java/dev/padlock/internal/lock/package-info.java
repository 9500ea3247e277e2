/**
 * The lock objects a caller holds: {@code RedisLock} (plain, spin, fair), {@code RedisFencedLock},
 * {@code RedisReadWriteLock}, and {@code LockServices}, what every lock of one client shares. The
 * blocking, async and thread-id methods of the API map onto acquisitions here; the blocking ones
 * wait through {@code BlockingWaits}. Uses every layer below.
 */
@NullMarked
package dev.padlock.internal.lock;

import org.jspecify.annotations.NullMarked;
