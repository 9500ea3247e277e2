package dev.padlock.tests.kinds;

import dev.padlock.RFencedLock;
import dev.padlock.tests.support.Clients;
import dev.padlock.tests.support.Contention;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.junit.RedisTest;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The fenced lock: tokens that only go up, whoever holds the lock and however it ended. */
@RedisTest
class FencedLockTest {
    @RegisterExtension
    final Clients clients = new Clients();

    @Test
    void tokensStrictlyIncreaseAcrossHoldersClientsAndLeaseExpiry(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("fenced");
        RFencedLock one = clients.open().getFencedLock(name);
        RFencedLock two = clients.open().getFencedLock(name);
        assertThat(one.getToken()).as("free").isNull();

        long first = one.lockAndGetToken();
        assertThat(one.getToken()).isEqualTo(first);
        one.unlock();
        assertThat(two.getToken()).isNull();

        long second = two.lockAndGetToken();
        assertThat(second).isGreaterThan(first);
        assertThat(one.getToken()).as("seen from the other client").isEqualTo(second);
        two.unlock();

        Long third = one.tryLockAndGetToken(0, 300, TimeUnit.MILLISECONDS);
        assertThat(third).isNotNull().isGreaterThan(second);
        await().atMost(Duration.ofSeconds(10)).until(() -> !one.isLocked()); // expires, never unlocked

        Long fourth = two.tryLockAndGetToken(1, 30, TimeUnit.SECONDS);
        assertThat(fourth).isNotNull().isGreaterThan(third);
        assertThat(two.forceUnlock()).isTrue(); // the lock's key is deleted; the counter is not

        long fifth = one.lockAndGetTokenAsync(-1, TimeUnit.MILLISECONDS, 7L).get(10, TimeUnit.SECONDS);
        assertThat(fifth).isGreaterThan(fourth);
        assertThat(one.getTokenAsync().get(10, TimeUnit.SECONDS)).isEqualTo(fifth);
        one.unlockAsync(7L).get(10, TimeUnit.SECONDS);

        String counter = "redisson_lock_token:{" + name + "}";
        assertThat(admin.commands().get(counter)).isEqualTo(Long.toString(fifth));
        assertThat(admin.commands().pttl(counter)).as("the counter never expires").isEqualTo(-1L);
    }

    @Test
    void aReentrantAcquisitionKeepsItsToken() throws Exception {
        RFencedLock lock = clients.open().getFencedLock(Clients.uniqueName("fenced-reentrant"));
        long token = lock.lockAndGetToken();
        assertThat(lock.tryLockAndGetToken(0, -1, TimeUnit.MILLISECONDS)).isEqualTo(token);
        assertThat(lock.lockAndGetToken(30, TimeUnit.SECONDS)).isEqualTo(token);
        lock.unlock();
        lock.lock();
        assertThat(lock.getHoldCount()).isEqualTo(3);
        assertThat(lock.getToken()).isEqualTo(token);
        lock.unlock();
        lock.unlock();
        lock.unlock();
        assertThat(lock.getToken()).isNull();
    }

    @Test
    void aTokenIsNullWhenTheLockIsNotAcquired() throws Exception {
        String name = Clients.uniqueName("fenced-busy");
        RFencedLock holder = clients.open().getFencedLock(name);
        RFencedLock other = clients.open().getFencedLock(name);
        long token = holder.lockAndGetToken();
        assertThat(other.tryLockAndGetToken(100, -1, TimeUnit.MILLISECONDS)).isNull();
        assertThat(other.tryLockAndGetTokenAsync(0, -1, TimeUnit.MILLISECONDS, 3L).get(10, TimeUnit.SECONDS)).isNull();
        assertThat(other.getToken()).isEqualTo(token);
        holder.unlock();
    }

    @Test
    void contendingHoldersOfTwoClientsSeeTokensInTheOrderTheyHeldTheLock() throws Exception {
        String name = Clients.uniqueName("fenced-contended");
        RFencedLock one = clients.open().getFencedLock(name);
        RFencedLock two = clients.open().getFencedLock(name);
        AtomicLong lastSeen = new AtomicLong(Long.MIN_VALUE);
        AtomicLong outOfOrder = new AtomicLong();
        int threads = 4;
        int rounds = 25;
        Contention.run(Executors.newFixedThreadPool(threads), threads, task -> {
            RFencedLock lock = task % 2 == 0 ? one : two;
            for (int i = 0; i < rounds; i++) {
                long token = lock.lockAndGetToken();
                try {
                    // what a fenced resource does: accept only tokens newer than the last one it saw
                    if (token <= lastSeen.getAndSet(token)) {
                        outOfOrder.incrementAndGet();
                    }
                } finally {
                    lock.unlock();
                }
            }
        });
        assertThat(outOfOrder).hasValue(0);
        assertThat(one.getToken()).isNull();
    }
}
