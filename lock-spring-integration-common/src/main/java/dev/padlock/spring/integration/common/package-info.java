/**
 * What Padlock's Spring Integration lock registries share, written once against types both
 * Spring Integration lines have ({@code java.util.concurrent.locks.Lock}, Padlock's {@code RLock},
 * Spring's {@code CannotAcquireLockException}): {@link dev.padlock.spring.integration.common.RegistryLocks}
 * and {@link dev.padlock.spring.integration.common.RegistryLock}. Not an API of its own: applications
 * use {@code dev.padlock.spring.integration.PadlockLockRegistry} (Spring Integration 7) or
 * {@code dev.padlock.spring.integration6.PadlockLockRegistry6} (6.5), whose behaviour this is.
 */
package dev.padlock.spring.integration.common;
