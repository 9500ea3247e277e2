/**
 * The machinery behind {@link dev.padlock.spring.Locked}, not API: its auto-configuration, a
 * Spring AOP advisor (no AspectJ needed), the parsed attributes of each annotated method, and one
 * route a return type: blocking, {@code CompletionStage}, or Reactor's {@code Mono} and
 * {@code Flux} (loaded only when Reactor is on the class path). Every lock is a lease
 * ({@link dev.padlock.LockLease}), so a release on another thread is right.
 */
package dev.padlock.spring.boot.locked;
