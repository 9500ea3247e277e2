package dev.padlock.tests.behaviour;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@RedisTest
class OwnershipTest {
    @RegisterExtension
    final Clients clients = new Clients();
    private LockClient client;

    @BeforeEach
    void open() {
        client = clients.open();
    }

    @Test
    void unlockByAThreadThatDoesNotHoldItThrowsAndLeavesTheHolder(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("owner");
        RLock lock = client.getLock(name);
        lock.lock();
        try {
            CompletableFuture<Throwable> other = CompletableFuture.supplyAsync(() -> {
                try {
                    lock.unlock();
                    return null;
                } catch (Throwable t) {
                    return t;
                }
            });
            assertThat(other.get(10, TimeUnit.SECONDS)).isInstanceOf(IllegalMonitorStateException.class)
                    .hasMessageContaining(name);
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            assertThat(admin.commands().hget(name, client.getId() + ":" + Thread.currentThread().getId())).isEqualTo("1");
        } finally {
            lock.unlock();
        }
    }

    @Test
    void unlockOfALockNeverTakenThrows() {
        RLock lock = client.getLock(Clients.uniqueName("never"));
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void unlockByAnotherClientWithTheSameThreadIdThrows(RedisEndpoint redis) {
        String name = Clients.uniqueName("other-client");
        RLock mine = client.getLock(name);
        RLock theirs = clients.open().getLock(name);
        mine.lock();
        try {
            assertThatThrownBy(theirs::unlock).isInstanceOf(IllegalMonitorStateException.class);
            assertThat(mine.isHeldByCurrentThread()).isTrue();
        } finally {
            mine.unlock();
        }
    }

    @Test
    void unlockAfterTheLeaseRanOutThrowsAndDoesNotDeleteTheNewHoldersLock(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("expired");
        RLock lock = client.getLock(name);
        lock.lock(200, TimeUnit.MILLISECONDS);
        await().atMost(Duration.ofSeconds(30)).until(() -> admin.commands().exists(name) == 0);

        LockClient other = clients.open();
        RLock theirs = other.getLock(name);
        long otherThread = 4242;
        theirs.lockAsync(30, TimeUnit.SECONDS, otherThread).get(5, TimeUnit.SECONDS);

        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("lease ran out");
        assertThat(admin.commands().hget(name, other.getId() + ":" + otherThread)).isEqualTo("1");
        theirs.unlockAsync(otherThread).get(5, TimeUnit.SECONDS);
    }

    @Test
    void asyncUnlockByANonOwnerCompletesWithIllegalMonitorState() {
        String name = Clients.uniqueName("async-owner");
        RLock lock = client.getLock(name);
        lock.lockAsync(10, TimeUnit.SECONDS, 1L).join();
        try {
            assertThatThrownBy(() -> lock.unlockAsync(2L).get(5, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(IllegalMonitorStateException.class);
            assertThat(lock.isHeldByThread(1L)).isTrue();
        } finally {
            lock.unlockAsync(1L).join();
        }
    }

    @Test
    void forceUnlockDeletesWhoeverHoldsIt(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("force");
        RLock lock = client.getLock(name);
        lock.lockAsync(30, TimeUnit.SECONDS, 7L).get(5, TimeUnit.SECONDS);
        RLock other = clients.open().getLock(name);
        assertThat(other.forceUnlock()).isTrue();
        assertThat(admin.commands().exists(name)).isZero();
        assertThat(other.forceUnlock()).isFalse();
        assertThat(lock.forceUnlockAsync().get(5, TimeUnit.SECONDS)).isFalse();
    }
}
