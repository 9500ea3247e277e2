package dev.padlock.kotlin

// Both, as an IDE's auto-import can leave them: the lock-kotlin one is what the documented form
// (the explicit import, and a block that names its lease) resolves to.
import dev.padlock.kotlin.withLock
import kotlin.concurrent.withLock
import dev.padlock.LockClient
import dev.padlock.LockConfig
import dev.padlock.LockLease
import dev.padlock.RLock
import dev.padlock.testing.RedisEndpoint
import dev.padlock.testing.junit.RedisTest
import java.util.UUID
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test

/**
 * Issue 38: Kotlin's standard `kotlin.concurrent.withLock` has the name of lock-kotlin's and takes
 * any `java.util.concurrent.locks.Lock`, an [RLock] included; an IDE's auto-import can pick it, and
 * it holds the lock by the thread, which a coroutine leaves at its first suspension. The
 * documented form, `import dev.padlock.kotlin.withLock` and a block that names its lease
 * (`{ lease -> ... }`, which the standard one, taking no parameter, does not compile with), gets
 * lock-kotlin's lease, even with the standard one imported too.
 */
@RedisTest
class WithLockImportTest {
    private lateinit var client: LockClient
    private lateinit var lock: RLock

    @BeforeEach
    fun open(redis: RedisEndpoint) {
        client = LockClient.create(LockConfig.builder().redisUri(redis.uri()).build())
        lock = client.getLock("kotlin-import:" + UUID.randomUUID())
    }

    @AfterEach
    fun close() {
        client.close()
    }

    @Test
    fun `the documented import and a block that names its lease get lock-kotlin's withLock`(): Unit = runBlocking {
        val seen = lock.withLock { lease ->
            val kind: LockLease = lease
            // held by the lease, not by this thread: checked from another thread, after a suspension
            withContext(Dispatchers.IO) { Pair(kind.isHeld, lock.isHeldByCurrentThread) }
        }
        assertThat(seen.first).`as`("the lease holds inside the block").isTrue()
        assertThat(seen.second).`as`("no thread holds it: not the standard, thread-bound withLock").isFalse()
        assertThat(lock.isLocked).`as`("released when the block ended").isFalse()
    }
}
