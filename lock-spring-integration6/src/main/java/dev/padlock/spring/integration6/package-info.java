/**
 * Padlock for Spring Integration 6.5 (Spring Boot 3.5):
 * {@link dev.padlock.spring.integration6.PadlockLockRegistry6}. On Spring Integration 7 use
 * {@code dev.padlock.spring.integration.PadlockLockRegistry} (module {@code lock-spring-integration}).
 */
package dev.padlock.spring.integration6;
