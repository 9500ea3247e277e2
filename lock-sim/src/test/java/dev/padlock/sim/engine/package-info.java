/**
 * The world the engine runs in during a simulation: virtual time and the one event queue
 * ({@code World}), a Netty timer on it per client ({@code ClientTimer}), the simulated network
 * and server ({@code Network}, {@code SimServer}), and the engine's {@code RedisBackend} on them
 * ({@code ModelBackend}, with Lettuce's command API in {@code ModelCommands}). Uses the Redis
 * model; knows nothing of the promises checked.
 */
package dev.padlock.sim.engine;
