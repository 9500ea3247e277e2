/**
 * Padlock for Reactor: {@link dev.padlock.reactor.ReactiveLock} acquires leases as {@code Mono}s
 * and runs a publisher under a lease, releasing it on completion, error and cancellation.
 */
package dev.padlock.reactor;
