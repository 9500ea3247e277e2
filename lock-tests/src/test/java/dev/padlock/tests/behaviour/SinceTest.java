package dev.padlock.tests.behaviour;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.RReadWriteLock;
import dev.padlock.tests.support.Clients;
import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.spi.LockKeys;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.junit.RedisTest;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * "Since" through a client, every kind: each holder's entry in {@code padlock_since:{<name>}} is
 * Redis time at its first hold, it expires with the lock, and nothing is left once the lock is free.
 */
@RedisTest
class SinceTest {
    @RegisterExtension
    final Clients clients = new Clients();

    @Test
    void everyKindWritesItsHoldersSinceAndLeavesNothingBehind(RedisAdmin admin) throws Exception {
        LockClient client = clients.open();
        String id = client.getId();
        List<RLock> exclusive = List.of(client.getLock(Clients.uniqueName("since-plain")),
                client.getFairLock(Clients.uniqueName("since-fair")),
                client.getFencedLock(Clients.uniqueName("since-fenced")),
                client.getSpinLock(Clients.uniqueName("since-spin")));
        for (RLock lock : exclusive) {
            long before = redisMillis(admin);
            lock.lockAsync(-1, TimeUnit.MILLISECONDS, 1L).get(5, TimeUnit.SECONDS);
            lock.lockAsync(-1, TimeUnit.MILLISECONDS, 1L).get(5, TimeUnit.SECONDS);
            String since = LockKeys.since(lock.getName());
            assertThat(admin.commands().hkeys(since)).as(lock.getName()).containsExactly(id + ":1");
            assertThat(Long.parseLong(admin.commands().hget(since, id + ":1"))).isBetween(before, redisMillis(admin));
            assertThat(admin.commands().pttl(since)).isBetween(admin.commands().pttl(lock.getName()) - 1_000,
                    admin.commands().pttl(lock.getName()) + 1_000);
            lock.unlockAsync(1L).get(5, TimeUnit.SECONDS);
            assertThat(admin.commands().hkeys(since)).containsExactly(id + ":1");
            lock.unlockAsync(1L).get(5, TimeUnit.SECONDS);
            assertThat(admin.commands().exists(since)).as(lock.getName()).isZero();
        }

        RReadWriteLock rw = client.getReadWriteLock(Clients.uniqueName("since-rw"));
        String since = LockKeys.since(rw.readLock().getName());
        rw.readLock().lockAsync(-1, TimeUnit.MILLISECONDS, 1L).get(5, TimeUnit.SECONDS);
        rw.readLock().lockAsync(-1, TimeUnit.MILLISECONDS, 2L).get(5, TimeUnit.SECONDS);
        // a reader's since is the value of its first hold's lease key, not an entry of the since hash
        String firstLease = LockKeys.readLeaseBase(rw.readLock().getName()) + ":" + id + ":1:rwlock_timeout:1";
        long redisNow = redisMillis(admin);
        assertThat(Long.parseLong(admin.commands().get(firstLease))).isBetween(redisNow - 10_000, redisNow + 10_000);
        assertThat(admin.commands().exists(since)).isZero();
        rw.readLock().lockAsync(-1, TimeUnit.MILLISECONDS, 1L).get(5, TimeUnit.SECONDS);
        assertThat(admin.commands().get(firstLease)).as("a re-entry keeps it").isNotNull();
        rw.readLock().unlockAsync(1L).get(5, TimeUnit.SECONDS);
        rw.readLock().unlockAsync(1L).get(5, TimeUnit.SECONDS);
        assertThat(admin.commands().exists(firstLease)).isZero();
        rw.readLock().unlockAsync(2L).get(5, TimeUnit.SECONDS);
        assertThat(admin.commands().exists(since)).isZero();
        rw.writeLock().lockAsync(-1, TimeUnit.MILLISECONDS, 3L).get(5, TimeUnit.SECONDS);
        assertThat(admin.commands().hgetall(since)).containsOnlyKeys(id + ":3:write");
        assertThat(rw.writeLock().forceUnlock()).isTrue();
        assertThat(admin.commands().exists(since)).isZero();
    }

    @Test
    void aLocalHandOffKeepsWhenTheClientGotTheLock(RedisAdmin admin) throws Exception {
        LockClient client = clients.open();
        RLock lock = client.getLock(Clients.uniqueName("since-handoff"));
        lock.lockAsync(-1, TimeUnit.MILLISECONDS, 1L).get(5, TimeUnit.SECONDS);
        var successor = lock.lockAsync(-1, TimeUnit.MILLISECONDS, 2L); // queued behind the holder at once
        lock.unlockAsync(1L).get(5, TimeUnit.SECONDS);
        successor.get(5, TimeUnit.SECONDS);

        assertThat(admin.commands().hkeys(lock.getName())).containsExactly(client.getId() + ":2");
        Map<String, String> since = admin.commands().hgetall(LockKeys.since(lock.getName()));
        assertThat(since).as("the client's first holder's entry").containsOnlyKeys(client.getId() + ":1");
        lock.unlockAsync(2L).get(5, TimeUnit.SECONDS);
        assertThat(admin.commands().exists(LockKeys.since(lock.getName()))).isZero();
    }

    private static long redisMillis(RedisAdmin admin) {
        List<String> time = admin.commands().time();
        return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
    }
}
