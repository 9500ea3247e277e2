/**
 * Padlock's engine. Not API: anything here may change in any release.
 *
 * <p>Roles, one class each: {@link dev.padlock.internal.PadlockClient} wires a client together;
 * {@link dev.padlock.internal.RedisLock} is the {@code RLock} facade;
 * {@link dev.padlock.internal.LocalQueue} is this client's view of one exclusive lock (who of it
 * holds it, who queues; only Redis grants), and {@link dev.padlock.internal.Ticket} one acquisition
 * through it;
 * {@link dev.padlock.internal.LockAcquisition} is the wait loop;
 * {@link dev.padlock.internal.LockProtocol} is a kind's acquire, release and renewal on Redis
 * ({@link dev.padlock.internal.ExclusiveLockProtocol}, {@link dev.padlock.internal.FairLockProtocol},
 * {@link dev.padlock.internal.ReadWriteLockProtocol}, {@link dev.padlock.internal.FencedLockProtocol},
 * and {@link dev.padlock.internal.AcknowledgedLockProtocol} around any of them);
 * {@link dev.padlock.internal.MultiLock} and {@link dev.padlock.internal.RedLock} are composites
 * over any {@code RLock};
 * {@link dev.padlock.internal.WakeUpRegistry} owns pub/sub subscriptions and parked waiters;
 * {@link dev.padlock.internal.Watchdog} renews the leases of owners; {@link dev.padlock.internal.ScriptRunner}
 * runs Lua by SHA; {@link dev.padlock.internal.RedisBackend} holds the connections and knows the
 * topology; {@link dev.padlock.internal.RedisErrors} turns Lettuce failures into Padlock
 * exceptions; {@link dev.padlock.spi.LockKeys} knows every key and channel name;
 * {@link dev.padlock.internal.GrantWaits} routes grant messages to the waits of kinds that grant
 * to one owner's place.
 *
 * <p><b>Who holds a lock.</b> An owner is told it holds only after a Redis reply that put or found
 * its field, or a grant message published by the script call that put it. Told that it holds with
 * lease L, it has its field with the hold count it believes and a TTL of at least L when Redis
 * answered (renewed by the watchdog for a watchdog lease), or it is told that it lost the lock by
 * the time that TTL runs out. So a grant writes the lease the place asked for (nothing to settle
 * later), every acquisition is its own hold (one wait with a place per owner and lock), every key
 * a script creates expires or is deleted by the call that empties it (fencing counters aside), and
 * a release never leaves a Redisson waiter asleep on a free lock longer than Redisson would.
 */
package dev.padlock.internal;
