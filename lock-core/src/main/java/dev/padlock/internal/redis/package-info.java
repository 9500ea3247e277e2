/**
 * Redis I/O, the bottom of the engine: {@code RedisBackend}, the one interface through which the
 * engine reaches Redis, and its Lettuce implementation: the connections and the topology (one server, Sentinel,
 * Cluster), following a Sentinel master, filtering replayed script calls after a reconnect, and
 * turning Lettuce failures into Padlock exceptions that name the address and the operation (and,
 * for a script Redis refuses to run, the fix). Uses only {@code base}.
 */
@NullMarked
package dev.padlock.internal.redis;

import org.jspecify.annotations.NullMarked;
