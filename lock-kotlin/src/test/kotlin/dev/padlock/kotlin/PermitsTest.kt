package dev.padlock.kotlin

import dev.padlock.LeaseLostException
import dev.padlock.LockClient
import dev.padlock.LockConfig
import dev.padlock.RPermitExpirableSemaphore
import dev.padlock.RSemaphore
import dev.padlock.spi.LockKeys
import dev.padlock.testing.RedisAdmin
import dev.padlock.testing.RedisEndpoint
import dev.padlock.testing.junit.RedisTest
import java.util.UUID
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows

/** The semaphores' suspending functions against a real Redis: permits given back on return, failure, cancellation and loss. */
@RedisTest
class PermitsTest {
    private val hang = 30.seconds

    private lateinit var client: LockClient
    private lateinit var admin: RedisAdmin
    private lateinit var semaphore: RSemaphore
    private lateinit var permits: RPermitExpirableSemaphore

    @BeforeEach
    fun open(redis: RedisEndpoint, admin: RedisAdmin) {
        client = LockClient.create(LockConfig.builder().redisUri(redis.uri())
            .watchdogTimeout(java.time.Duration.ofMillis(1_500)).build())
        this.admin = admin
        semaphore = client.getSemaphore("kotlin-sem:" + UUID.randomUUID())
        semaphore.trySetPermits(2)
        permits = client.getPermitExpirableSemaphore("kotlin-permits:" + UUID.randomUUID())
        permits.trySetPermits(1)
    }

    @AfterEach
    fun close() {
        client.close()
    }

    private suspend fun awaitTrue(condition: () -> Boolean) = withTimeout(hang) {
        while (!condition()) {
            delay(10)
        }
    }

    @Test
    fun `withPermits gives the permits back after the block, and after a failure`(): Unit = runBlocking {
        val inside = semaphore.withPermits(2) { semaphore.availablePermits() }
        assertThat(inside).isZero()
        assertThat(semaphore.availablePermits()).isEqualTo(2)
        assertThrows<IllegalStateException> { semaphore.withPermits { error("block failed") } }
        assertThat(semaphore.availablePermits()).isEqualTo(2)
    }

    @Test
    fun `a cancelled wait for permits keeps none`(): Unit = runBlocking {
        semaphore.acquirePermits(2)
        val waiter = launch { semaphore.acquirePermits(1) }
        val channel = LockKeys.semaphoreChannel(semaphore.name)
        awaitTrue { (admin.commands().pubsubNumsub(channel)[channel] ?: 0L) >= 1L } // parked, subscribed
        waiter.cancelAndJoin()
        semaphore.release(2)
        awaitTrue { semaphore.availablePermits() == 2 }
    }

    @Test
    fun `withPermit runs the block under a permit lease and gives it back`(): Unit = runBlocking {
        val id = permits.withPermit { permit -> permit.permitId() }
        assertThat(id).hasSize(32)
        assertThat(permits.availablePermits()).isEqualTo(1)
        assertThat(permits.tryAcquirePermit(0.milliseconds)).isNotNull
    }

    @Test
    fun `a lost permit cancels the block`(): Unit = runBlocking {
        assertThrows<LeaseLostException> {
            permits.withPermit {
                admin.commands().del(LockKeys.permitLeases(permits.name))
                awaitCancellation()
            }
        }
    }
}
