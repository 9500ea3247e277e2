/**
 * Padlock's engine. Not API: anything here may change in any release.
 *
 * <p>Roles, one class each: {@link dev.padlock.internal.PadlockClient} wires a client together;
 * {@link dev.padlock.internal.RedisLock} is the {@code RLock} facade; 
 * {@link dev.padlock.internal.LockAcquisition} is the wait loop;
 * {@link dev.padlock.internal.ExclusiveLockProtocol} is the acquire and release protocol of {@code RLock};
 * {@link dev.padlock.internal.WakeUpRegistry} owns pub/sub subscriptions and parked waiters;
 * {@link dev.padlock.internal.Watchdog} renews leases; {@link dev.padlock.internal.ScriptRunner}
 * runs Lua by SHA; {@link dev.padlock.internal.RedisBackend} holds the connections;
 * {@link dev.padlock.internal.RedisErrors} turns Lettuce failures into Padlock exceptions;
 * {@link dev.padlock.internal.LockKeys} knows every key and channel name.
 */
package dev.padlock.internal;
