package dev.padlock.tests.behaviour;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.RReadWriteLock;
import dev.padlock.tests.support.Clients;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.padlock.spi.LockKeys;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.internal.queue.SinceNotes;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * "Since" through a client, every kind: each holder's entry in {@code padlock_since:{<name>}} is
 * Redis time at its first hold (noted by its client once the hold has lasted, for the plain, spin
 * and fenced locks; at once by the fair lock), it expires with the lock, and nothing is left once
 * the lock is free.
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
            long acquired = redisMillis(admin);
            lock.lockAsync(-1, TimeUnit.MILLISECONDS, 1L).get(5, TimeUnit.SECONDS);
            String since = LockKeys.since(lock.getName());
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(admin.commands().hkeys(since)).as(lock.getName()).containsExactly(id + ":1"));
            // noted as Redis time less how long the client saw the hold: the acquisition's time, not
            // the note's (a second or more later); generous bounds, for a busy machine
            assertThat(Long.parseLong(admin.commands().hget(since, id + ":1"))).isBetween(before - 5,
                    acquired + 900);
            // at least the lock's TTL (a note rounds it up to the next second)
            assertThat(admin.commands().pttl(since)).isBetween(admin.commands().pttl(lock.getName()) - 1_000,
                    admin.commands().pttl(lock.getName()) + 2_000);
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

    /** Issue 26: a hold released before it lasted writes no since at all. */
    @Test
    void aShortHoldWritesNoSince(RedisAdmin admin) throws Exception {
        LockClient client = clients.open();
        RLock lock = client.getLock(Clients.uniqueName("since-short"));
        long start = System.nanoTime();
        lock.lockAsync(30_000, TimeUnit.MILLISECONDS, 1L).get(5, TimeUnit.SECONDS);
        boolean noted = admin.commands().exists(LockKeys.since(lock.getName())) > 0;
        long heldAtMostMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        lock.unlockAsync(1L).get(5, TimeUnit.SECONDS);

        assertThat(admin.keys().stream().filter(k -> k.contains(lock.getName()))).as("nothing left").isEmpty();
        // a machine that stalled for the whole delay may have noted it, rightly: nothing to judge then
        assumeTrue(heldAtMostMillis < SinceNotes.NOTE_AFTER_MILLIS, "held for " + heldAtMostMillis + " ms");
        assertThat(noted).as("noted only once the hold lasted " + SinceNotes.NOTE_AFTER_MILLIS + " ms").isFalse();
    }

    @Test
    void aLocalHandOffKeepsWhenTheClientGotTheLock(RedisAdmin admin) throws Exception {
        LockClient client = clients.open();
        RLock lock = client.getLock(Clients.uniqueName("since-handoff"));
        long before = redisMillis(admin);
        lock.lockAsync(-1, TimeUnit.MILLISECONDS, 1L).get(5, TimeUnit.SECONDS);
        long acquired = redisMillis(admin);
        var successor = lock.lockAsync(-1, TimeUnit.MILLISECONDS, 2L); // queued behind the holder at once
        lock.unlockAsync(1L).get(5, TimeUnit.SECONDS);
        successor.get(5, TimeUnit.SECONDS);

        assertThat(admin.commands().hkeys(lock.getName())).containsExactly(client.getId() + ":2");
        String key = LockKeys.since(lock.getName());
        await().atMost(Duration.ofSeconds(30)).until(() -> admin.commands().exists(key) > 0);
        Map<String, String> since = admin.commands().hgetall(key);
        assertThat(since).as("one entry for the client's run of holds").hasSize(1);
        assertThat(Long.parseLong(since.values().iterator().next())).as("since the client's first holder")
                .isBetween(before - 5, acquired + 900);
        lock.unlockAsync(2L).get(5, TimeUnit.SECONDS);
        assertThat(admin.commands().exists(LockKeys.since(lock.getName()))).isZero();
    }

    private static long redisMillis(RedisAdmin admin) {
        List<String> time = admin.commands().time();
        return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
    }
}
