/**
 * Padlock's semaphores for Kotlin coroutines: suspending functions on [RSemaphore] and
 * [RPermitExpirableSemaphore]. Cancelling a suspended call stops its wait; permits that land after
 * the cancel are given back.
 */
package dev.padlock.kotlin

import dev.padlock.LeaseLostException
import dev.padlock.PermitLease
import dev.padlock.RPermitExpirableSemaphore
import dev.padlock.RSemaphore
import kotlin.coroutines.cancellation.CancellationException
import kotlin.time.Duration
import kotlin.time.toJavaDuration
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.future.await
import kotlinx.coroutines.launch
import kotlinx.coroutines.withContext

/** Takes [permits] of this semaphore, suspending as long as it takes. */
suspend fun RSemaphore.acquirePermits(permits: Int = 1) {
    acquireAsync(permits).await() // a cancel of the coroutine cancels the wait; permits after it go back
}

/**
 * Runs [block] holding [permits] of this semaphore, suspending as long as it takes to get them,
 * and gives them back when the block ends: returned, thrown or cancelled.
 */
suspend fun <T> RSemaphore.withPermits(permits: Int = 1, block: suspend () -> T): T {
    acquirePermits(permits)
    try {
        return block()
    } finally {
        withContext(NonCancellable) { releaseAsync(permits).await() }
    }
}

/**
 * Takes a permit of this semaphore, suspending as long as it takes.
 *
 * @param leaseTime the lease; [Duration.ZERO] means a watchdog lease, renewed until released
 */
suspend fun RPermitExpirableSemaphore.acquirePermit(leaseTime: Duration = Duration.ZERO): PermitLease =
    awaitPermit { acquireAsync(leaseTime.toJavaDuration()).thenApply { java.util.Optional.of(it) } }!!

/**
 * Takes a permit of this semaphore within [waitTime]; null when the wait ran out.
 *
 * @param leaseTime the lease; [Duration.ZERO] means a watchdog lease, renewed until released
 */
suspend fun RPermitExpirableSemaphore.tryAcquirePermit(waitTime: Duration, leaseTime: Duration = Duration.ZERO): PermitLease? =
    awaitPermit { tryAcquireAsync(waitTime.toJavaDuration(), leaseTime.toJavaDuration()) }

private suspend fun awaitPermit(start: () -> java.util.concurrent.CompletableFuture<java.util.Optional<PermitLease>>): PermitLease? {
    val wait = start()
    try {
        return wait.await().orElse(null)
    } catch (e: CancellationException) {
        if (!wait.isCancelled) {
            wait.thenAccept { permit -> permit.ifPresent { it.releaseAsync() } } // landed just before the cancel
        }
        throw e
    }
}

/**
 * Runs [block] under a permit with a watchdog lease, taken within [waitTime] (null: as long as it
 * takes), and gives it back when the block ends: returned, thrown or cancelled. When the permit is
 * lost, the block is cancelled and this throws [LeaseLostException]. Null when the wait ran out.
 */
suspend fun <T> RPermitExpirableSemaphore.withPermit(waitTime: Duration? = null,
        block: suspend CoroutineScope.(PermitLease) -> T): T? {
    val permit = (if (waitTime == null) acquirePermit() else tryAcquirePermit(waitTime)) ?: return null
    var lost = false
    try {
        return coroutineScope {
            val scope = this
            permit.onLost {
                lost = true
                scope.launch { throw LeaseLostException(name, "(permit ${permit.permitId()}) was lost") }
            }
            block(permit)
        }
    } finally {
        withContext(NonCancellable) {
            if (!lost) {
                try {
                    permit.releaseAsync().await()
                } catch (notHeld: IllegalStateException) {
                    // lost meanwhile: nothing to give back
                }
            }
        }
    }
}
