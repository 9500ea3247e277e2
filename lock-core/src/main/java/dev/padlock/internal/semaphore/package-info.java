/**
 * Semaphores, in Redisson's formats: {@code RedisSemaphore} (counted permits),
 * {@code RedisPermitExpirableSemaphore} and its permits as leases, {@code RedisPermitLease}
 * (renewed by their own rounds on the client's timer when they are the watchdog's);
 * {@code SemaphoreWait}, one wait for permits (an attempt, then attempts after each wake-up on the
 * semaphore's channel, a look interval, or the end of the nearest lease, until the permits are
 * taken or the wait ends); {@code PermitHandOffs}, the client's hand-offs of counted permits from
 * a release to its own parked waiters, within the {@code queue.HandOffBudget}; {@code BlockingCalls},
 * the blocking methods' bounded waits. Uses {@code script}, {@code wakeup}, the client's services
 * from {@code lock}, and {@code queue}'s budget.
 */
@NullMarked
package dev.padlock.internal.semaphore;

import org.jspecify.annotations.NullMarked;
