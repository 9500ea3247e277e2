/**
 * Semaphores: {@code RedisSemaphore}, the counting semaphore in Redisson's {@code RSemaphore}
 * format, and {@code SemaphoreWait}, one wait for permits (an attempt, then attempts after each
 * wake-up on the semaphore's channel, until the permits are taken or the wait ends). Uses
 * {@code script}, {@code wakeup} and the client's services from {@code lock}.
 */
@NullMarked
package dev.padlock.internal.semaphore;

import org.jspecify.annotations.NullMarked;
