/**
 * Annotation locking for Spring applications: {@link dev.padlock.spring.Locked} on a bean's method
 * runs it under a Padlock lock, and {@link dev.padlock.spring.LockNotAcquiredException} says when
 * the lock was not acquired in time. The starter's auto-configuration applies it.
 */
package dev.padlock.spring;
