package dev.padlock.tests.behaviour;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.tests.support.Clients;
import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.junit.RedisTest;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@RedisTest
class ReentrancyTest {
    @RegisterExtension
    final Clients clients = new Clients();
    private LockClient client;

    @BeforeEach
    void open() {
        client = clients.open();
    }

    @Test
    void holdCountGoesUpAndDownAndTheKeyIsGoneAtZero(RedisAdmin admin) {
        String name = Clients.uniqueName("reentrant");
        RLock lock = client.getLock(name);
        String field = client.getId() + ":" + Thread.currentThread().getId();

        for (int holds = 1; holds <= 3; holds++) {
            lock.lock();
            assertThat(lock.getHoldCount()).isEqualTo(holds);
            assertThat(admin.commands().hgetall(name)).isEqualTo(Map.of(field, Integer.toString(holds)));
        }
        for (int holds = 2; holds >= 0; holds--) {
            lock.unlock();
            assertThat(lock.getHoldCount()).isEqualTo(holds);
        }
        assertThat(admin.commands().exists(name)).isZero();
        assertThat(lock.isLocked()).isFalse();
        assertThat(lock.remainTimeToLive()).isEqualTo(-2);
    }

    @Test
    void theHashFieldIsClientIdColonThreadIdAndTheLeaseIsSet(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("format");
        RLock lock = client.getLock(name);
        assertThat(lock.tryLock(0, 10, TimeUnit.SECONDS)).isTrue();
        try {
            assertThat(admin.commands().type(name)).isEqualTo("hash");
            assertThat(admin.commands().hkeys(name))
                    .containsExactly(client.getId() + ":" + Thread.currentThread().getId());
            assertThat(admin.commands().pttl(name)).isBetween(1L, 10_000L);
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            assertThat(lock.isHeldByThread(Thread.currentThread().getId())).isTrue();
            assertThat(lock.isHeldByThread(Thread.currentThread().getId() + 1)).isFalse();
        } finally {
            lock.unlock();
        }
    }

    @Test
    void aReentryWithAFixedLeaseKeepsTheLockAndTheInnerUnlockLeavesTheLeaseAlone(RedisAdmin admin) {
        String name = Clients.uniqueName("inner");
        RLock lock = client.getLock(name);
        lock.lock(20, TimeUnit.SECONDS);
        lock.lock(20, TimeUnit.SECONDS);
        admin.commands().pexpire(name, 5_000);
        lock.unlock();
        assertThat(admin.commands().pttl(name)).as("an inner unlock of a fixed lease does not extend it").isLessThanOrEqualTo(5_000L);
        assertThat(lock.getHoldCount()).isEqualTo(1);
        lock.unlock();
        assertThat(admin.commands().exists(name)).isZero();
    }

    @Test
    void getLockIsCheapAndTwoObjectsOfOneNameAreOneLock() {
        String name = Clients.uniqueName("same");
        RLock a = client.getLock(name);
        RLock b = client.getLock(name);
        a.lock();
        try {
            assertThat(b.isHeldByCurrentThread()).isTrue();
            assertThat(b.getHoldCount()).isEqualTo(1);
            b.lock();
            assertThat(a.getHoldCount()).isEqualTo(2);
            b.unlock();
        } finally {
            a.unlock();
        }
        assertThat(a.isLocked()).isFalse();
        assertThat(a.getName()).isEqualTo(name);
    }
}
