/**
 * A model of one Redis server in memory and virtual time that runs the lock-lua scripts unchanged
 * on luaj ({@code ModelRedis}), optionally holding them to a strict server's rule that a script
 * touches only its KEYS ({@code DeclaredKeys}), and the differential test that holds it to a real
 * redis-server ({@code ModelDifferentialTest}). Knows nothing of the engine.
 */
package dev.padlock.sim.redis;
