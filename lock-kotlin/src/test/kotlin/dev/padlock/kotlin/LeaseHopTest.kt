package dev.padlock.kotlin

import dev.padlock.LockClient
import dev.padlock.LockConfig
import dev.padlock.LockLease
import dev.padlock.testing.RedisEndpoint
import dev.padlock.testing.junit.RedisTest
import java.util.UUID
import java.util.concurrent.Executor
import java.util.concurrent.ExecutorService
import java.util.concurrent.Executors
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicLong
import kotlin.time.Duration.Companion.minutes
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.future.await
import kotlinx.coroutines.joinAll
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import reactor.core.scheduler.Schedulers

/**
 * Leases hop between platform threads, virtual threads (JDK 21+), Reactor schedulers and
 * coroutine dispatchers (issue 27): each cycle acquires on one and releases on another, by
 * workers of two clients on three locks. No release may meet an `IllegalMonitorStateException`
 * (it would fail the worker), and no two leases may hold one lock at once.
 * `-Dpadlock.hop.cycles` sets the count (the closing note's million); CI runs a few thousand.
 */
@RedisTest
class LeaseHopTest {
    private val cycles = Integer.getInteger("padlock.hop.cycles", 2_000)
    private val workers = 8
    private val locks = 3

    /** Where a step runs, and whether it may block there. */
    private class Place(val name: String, val dispatcher: CoroutineDispatcher, val mayBlock: Boolean)

    @Test
    fun `leases hop across every kind of thread with no monitor error and no double holder`(redis: RedisEndpoint): Unit =
        runBlocking {
            val clients = List(2) { LockClient.create(LockConfig.builder().redisUri(redis.uri()).build()) }
            val platform = Executors.newFixedThreadPool(2 * workers)
            val virtual = virtualThreads()
            val places = buildList {
                add(Place("platform", platform.asCoroutineDispatcher(), true))
                if (virtual != null) add(Place("virtual", virtual.asCoroutineDispatcher(), true))
                add(Place("reactor", Executor { Schedulers.parallel().schedule(it) }.asCoroutineDispatcher(), false))
                add(Place("coroutines", Dispatchers.Default, false))
            }
            val name = "hop:" + UUID.randomUUID()
            val holders = List(locks) { AtomicInteger() }
            val doubles = AtomicInteger()
            val done = AtomicLong()
            try {
                withTimeout(60.minutes) { // a bound that catches a hang only
                    (0 until workers).map { worker ->
                        launch(Dispatchers.Default) {
                            for (cycle in worker until cycles step workers) {
                                val which = cycle % locks
                                val lock = clients[cycle % 2].getLock("$name:$which")
                                val acquireOn = places[cycle % places.size]
                                val releaseOn = places[(cycle / places.size + 1) % places.size]
                                val lease: LockLease = withContext(acquireOn.dispatcher) {
                                    if (acquireOn.mayBlock) lock.acquire() else lock.acquireLease()
                                }
                                if (holders[which].incrementAndGet() != 1) doubles.incrementAndGet()
                                withContext(releaseOn.dispatcher) {
                                    holders[which].decrementAndGet()
                                    if (releaseOn.mayBlock) lease.release() else lease.releaseAsync().await()
                                }
                                done.incrementAndGet()
                            }
                        }
                    }.joinAll()
                }
                println("lease hops: ${done.get()} cycles over ${places.joinToString { it.name }}")
                assertThat(done.get()).isEqualTo(cycles.toLong())
                assertThat(doubles.get()).isZero()
                for (i in 0 until locks) {
                    assertThat(clients[0].getLock("$name:$i").isLocked).isFalse()
                }
            } finally {
                clients.forEach(LockClient::close)
                platform.shutdownNow()
                virtual?.shutdownNow()
            }
        }

    private fun virtualThreads(): ExecutorService? =
        if (Runtime.version().feature() < 21) null
        else Executors::class.java.getMethod("newVirtualThreadPerTaskExecutor").invoke(null) as ExecutorService
}
