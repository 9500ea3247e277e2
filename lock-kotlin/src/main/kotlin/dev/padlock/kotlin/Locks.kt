/**
 * Padlock for Kotlin coroutines: suspending functions on [RLock], with leases ([LockLease]) for
 * ownership, so that a lock taken in one coroutine may be released from any thread the coroutine
 * resumes on. Cancelling a suspended call stops its wait; a lease that lands after the cancel is
 * released.
 */
package dev.padlock.kotlin

import dev.padlock.LeaseLostException
import dev.padlock.LockLease
import dev.padlock.RLock
import java.util.concurrent.CompletableFuture
import kotlin.coroutines.cancellation.CancellationException
import kotlin.time.Duration
import kotlin.time.toJavaDuration
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.async
import kotlinx.coroutines.supervisorScope
import kotlinx.coroutines.future.asCompletableFuture
import kotlinx.coroutines.future.await

/**
 * Acquires a lease of this lock, suspending as long as it takes.
 *
 * @param leaseTime the lease; [Duration.ZERO] means a watchdog lease, renewed until released
 */
suspend fun RLock.acquireLease(leaseTime: Duration = Duration.ZERO): LockLease =
    acquireAsync(leaseTime.toJavaDuration()).awaitLease { it }!!

/**
 * Acquires a lease of this lock within [waitTime]; null when the wait ran out.
 *
 * @param leaseTime the lease; [Duration.ZERO] means a watchdog lease, renewed until released
 */
suspend fun RLock.tryAcquireLease(waitTime: Duration, leaseTime: Duration = Duration.ZERO): LockLease? =
    tryAcquireAsync(waitTime.toJavaDuration(), leaseTime.toJavaDuration()).awaitLease { it.orElse(null) }

/**
 * Awaits an acquisition's future. A cancel of the coroutine cancels the future (Padlock then
 * releases a lease that lands after it); a lease that had landed just before is released here.
 */
private suspend fun <T> CompletableFuture<T>.awaitLease(leaseOf: (T) -> LockLease?): LockLease? =
    try {
        leaseOf(await())
    } catch (e: CancellationException) {
        if (!isCancelled) {
            thenAccept { answer -> leaseOf(answer)?.releaseAsync() }
        }
        throw e
    }

/**
 * Runs [block] under a watchdog lease of this lock, suspending as long as it takes to acquire it,
 * and releases the lease when the block ends: returned, thrown or cancelled. When the lease is
 * lost, or could run out with no renewal answered by Redis, the block is cancelled and this
 * throws [LeaseLostException]. The block runs in the caller's context, on no particular thread;
 * its failure reaches the caller once the lease is released.
 *
 * Import it explicitly, `import dev.padlock.kotlin.withLock`, and name the lease in the block
 * (`lock.withLock { lease -> ... }`): the standard library's `kotlin.concurrent.withLock` has the
 * same name, applies to any `java.util.concurrent.locks.Lock` (an [RLock] too), and holds the lock
 * by the calling thread, which a coroutine may leave at its first suspension. An IDE's auto-import
 * may pick that one; a block that names its lease does not compile with it.
 */
suspend fun <T> RLock.withLock(block: suspend CoroutineScope.(LockLease) -> T): T = supervisorScope {
    withLockAsync { lease -> async { block(lease) }.asCompletableFuture() }.await()
}

/**
 * As [withLock], waiting at most [waitTime] for the lease; null when the wait ran out (or the
 * block returned null).
 */
suspend fun <T> RLock.withLock(waitTime: Duration, block: suspend CoroutineScope.(LockLease) -> T): T? =
    supervisorScope {
        withLockAsync(waitTime.toJavaDuration()) { lease -> async { block(lease) }.asCompletableFuture() }
            .await().orElse(null)
    }
