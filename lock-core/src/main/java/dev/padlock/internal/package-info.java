/**
 * Padlock's engine. Not API: anything here may change in any release.
 *
 * <p>The engine is layered; each sub-package's {@code package-info} says its job and what it may
 * use, and {@code EngineLayersTest} holds the order, bottom to top: {@code base} (argument checks,
 * URIs, time), {@code redis} (connections, topology, errors), {@code script} (running lock-lua),
 * {@code wakeup} (pub/sub and parked waiters), {@code protocol} (each kind's calls on Redis),
 * {@code lease} (leases: how they are acquired, how long each is safe), {@code renewal} (the watchdog), {@code acquire} (one acquisition's wait loop), {@code grant}
 * (waits for a grant to a place in a line), {@code queue} (the client's local queue of an
 * exclusive lock), {@code observe} (telling a {@code LockObserver}), {@code composite} (multi and
 * red locks), {@code lock} (the lock objects), and this package on top:
 * {@link dev.padlock.internal.PadlockClient} wires a client together,
 * {@link dev.padlock.internal.DeferredClient} stands in until Redis answers,
 * {@link dev.padlock.internal.ClientRegistration} keeps the client registry entry,
 * {@link dev.padlock.internal.SpiAccess} serves {@code dev.padlock.spi}. Every key and channel name
 * comes from {@link dev.padlock.spi.LockKeys}.
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
@NullMarked
package dev.padlock.internal;

import org.jspecify.annotations.NullMarked;
