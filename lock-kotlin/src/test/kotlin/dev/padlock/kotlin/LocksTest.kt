package dev.padlock.kotlin

import dev.padlock.LeaseLostException
import dev.padlock.LockClient
import dev.padlock.LockConfig
import dev.padlock.RLock
import dev.padlock.testing.RedisAdmin
import dev.padlock.testing.RedisEndpoint
import dev.padlock.testing.junit.RedisTest
import java.util.UUID
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.joinAll
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows

/**
 * The suspending functions against a real Redis: leases that hop between coroutines and threads,
 * release on return, failure and cancellation (waiting or running), and a block cancelled when its
 * lease is lost.
 */
@RedisTest
class LocksTest {
    /** Upper bound for anything that should finish quickly: catches hangs only. */
    private val hang = 30.seconds

    private lateinit var client: LockClient
    private lateinit var admin: RedisAdmin
    private lateinit var lock: RLock

    @BeforeEach
    fun open(redis: RedisEndpoint, admin: RedisAdmin) {
        client = LockClient.create(LockConfig.builder().redisUri(redis.uri())
            .watchdogTimeout(java.time.Duration.ofMillis(3_000)).build())
        this.admin = admin
        lock = client.getLock("kotlin:" + UUID.randomUUID())
    }

    @AfterEach
    fun close() {
        client.close()
    }

    private fun locked() = admin.commands().exists(lock.name) == 1L

    /** Polls until the lock is free: a bound that catches a hang only. */
    private suspend fun awaitFree() = withTimeout(hang) {
        while (locked()) {
            delay(10)
        }
    }

    @Test
    fun `withLock runs the block under a lease and releases it`(): Unit = runBlocking {
        val held = lock.withLock { lease -> withContext(Dispatchers.IO) { lease.isHeld } }
        assertThat(held).isTrue()
        assertThat(locked()).isFalse()
        assertThrows<IllegalStateException> { lock.withLock { error("block failed") } }
        assertThat(locked()).`as`("released after a failure").isFalse()
    }

    @Test
    fun `a bounded wait that runs out gives null`(): Unit = runBlocking {
        val holder = lock.acquireLease()
        assertThat(lock.tryAcquireLease(50.milliseconds)).isNull()
        assertThat(lock.withLock(50.milliseconds) { "never" }).isNull()
        withContext(Dispatchers.IO) { holder.release() }
        val next = lock.tryAcquireLease(5.seconds, 10.seconds)
        assertThat(next).isNotNull
        withContext(Dispatchers.IO) { next!!.release() }
    }

    /** The README's `ship(order)`: work that returns nothing. */
    private fun ship(shipped: AtomicInteger) {
        shipped.incrementAndGet()
    }

    @Test
    fun `a block without a result needs no overload, and null says the wait ran out`(): Unit = runBlocking {
        val shipped = AtomicInteger()
        lock.withLock { ship(shipped) }
        val ran: Unit? = lock.withLock(5.seconds) { ship(shipped) }
        assertThat(ran).isNotNull
        assertThat(shipped.get()).isEqualTo(2)
        val holder = lock.acquireLease()
        assertThat(lock.withLock(50.milliseconds) { ship(shipped) }).`as`("the wait ran out").isNull()
        withContext(Dispatchers.IO) { holder.release() }
        assertThat(shipped.get()).`as`("the block did not run").isEqualTo(2)
    }

    @Test
    fun `leases hop between coroutines and threads with one holder at a time`(): Unit = runBlocking {
        val holders = AtomicInteger()
        val doubles = AtomicInteger()
        val cycles = AtomicInteger()
        (0 until 16).map { worker ->
            launch(Dispatchers.Default) {
                repeat(25) {
                    val lease = lock.acquireLease()
                    if (holders.incrementAndGet() != 1) doubles.incrementAndGet()
                    withContext(if (worker % 2 == 0) Dispatchers.IO else Dispatchers.Default) {
                        holders.decrementAndGet()
                        lease.release() // on another thread than the one that acquired it
                    }
                    cycles.incrementAndGet()
                }
            }
        }.joinAll()
        assertThat(cycles.get()).isEqualTo(400)
        assertThat(doubles.get()).isZero()
        assertThat(locked()).isFalse()
    }

    @Test
    fun `cancelling a coroutine that waits leaves nothing behind`(): Unit = runBlocking {
        val holder = lock.acquireLease()
        val ran = AtomicBoolean()
        val waiting = launch(Dispatchers.Default) { lock.withLock { ran.set(true) } }
        delay(100)
        waiting.cancelAndJoin()
        withContext(Dispatchers.IO) { holder.release() }
        awaitFree()
        assertThat(ran).isFalse()
    }

    @Test
    fun `cancelling a running block releases its lease`(): Unit = runBlocking {
        val started = CompletableDeferred<Unit>()
        val running = launch(Dispatchers.Default) {
            lock.withLock {
                started.complete(Unit)
                awaitCancellation()
            }
        }
        withTimeout(hang) { started.await() }
        assertThat(locked()).isTrue()
        running.cancelAndJoin()
        awaitFree()
    }

    @Test
    fun `a block whose lease is lost is cancelled and the caller told why`(): Unit = runBlocking {
        val cancelled = AtomicBoolean()
        assertThrows<LeaseLostException> {
            withTimeout(hang) {
                lock.withLock {
                    withContext(Dispatchers.IO) { admin.commands().del(lock.name) }
                    try {
                        awaitCancellation()
                    } finally {
                        cancelled.set(true)
                    }
                }
            }
        }
        assertThat(cancelled).isTrue()
    }
}
