package dev.padlock.tests.kinds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.RReadWriteLock;
import dev.padlock.spi.LockKeys;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import dev.padlock.tests.support.Contention;
import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 13, the read-write lock without the herd: writers wait in a line on Redis, and the unlock
 * that lets someone in passes the lock to them in the same call and tells only them (the first
 * writer, or the readers waiting when a write ends, before the next writer); readers yield to a
 * waiting writer, so a stream of them does not starve it; a writer that is gone stops holding up
 * readers at its deadline.
 */
@RedisTest
class ReadWriteLineTest {
    @RegisterExtension
    final Clients clients = new Clients();

    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void stopPool() {
        pool.shutdownNow();
    }

    @Test
    void anUnlockGrantsTheLockToTheFirstWriterInLineAndTellsNobodyElse(RedisEndpoint redis, RedisAdmin admin)
            throws Exception {
        String name = Clients.uniqueName("rw-line-grant");
        RReadWriteLock reading = clients.open().getReadWriteLock(name);
        LockClient first = clients.open();
        LockClient second = clients.open();
        String firstField = first.getId() + ":101:write";
        String secondField = second.getId() + ":102:write";
        RedisClient plain = RedisClient.create(redis.uri());
        try (StatefulRedisPubSubConnection<String, String> listener = plain.connectPubSub()) {
            Map<String, AtomicInteger> messages = new ConcurrentHashMap<>();
            listener.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String pattern, String channel, String message) {
                    messages.computeIfAbsent(channel, c -> new AtomicInteger()).incrementAndGet();
                }
            });
            listener.sync().psubscribe(LockKeys.readWriteChannel(name) + "*", LockKeys.grantChannelPrefix(name) + "*");

            reading.readLock().lockAsync(-1, TimeUnit.MILLISECONDS, 1L).get(5, TimeUnit.SECONDS);
            CompletableFuture<Void> firstWrite = first.getReadWriteLock(name).writeLock()
                    .lockAsync(-1, TimeUnit.MILLISECONDS, 101L);
            await().atMost(Duration.ofSeconds(30)).until(() -> placesInLine(admin, name).equals(List.of(firstField)));
            CompletableFuture<Void> secondWrite = second.getReadWriteLock(name).writeLock()
                    .lockAsync(-1, TimeUnit.MILLISECONDS, 102L);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> placesInLine(admin, name).equals(List.of(firstField, secondField)));

            reading.readLock().unlockAsync(1L).get(5, TimeUnit.SECONDS);
            firstWrite.get(5, TimeUnit.SECONDS);
            assertThat(secondWrite).isNotDone();
            String firstGrants = LockKeys.grantChannelPrefix(name) + first.getId();
            String secondGrants = LockKeys.grantChannelPrefix(name) + second.getId();
            String marker = LockKeys.readWriteChannel(name) + ":marker";
            // the same connection: the marker comes after whatever the unlock published
            admin.commands().publish(marker, "m");
            await().atMost(Duration.ofSeconds(30)).until(() -> messages.containsKey(marker));
            assertThat(messages.get(firstGrants)).as("the first writer's client, told once").hasValue(1);
            assertThat(messages).as("nobody else: not the second writer, not the shared channel, no wake-up")
                    .doesNotContainKeys(secondGrants, LockKeys.readWriteChannel(name),
                            LockKeys.readWriteWriterChannel(name, firstField),
                            LockKeys.readWriteWriterChannel(name, secondField));

            first.getReadWriteLock(name).writeLock().unlockAsync(101L).get(5, TimeUnit.SECONDS);
            secondWrite.get(5, TimeUnit.SECONDS);
            admin.commands().publish(marker, "m");
            await().atMost(Duration.ofSeconds(30)).until(() -> messages.get(marker).get() == 2);
            assertThat(messages.get(secondGrants)).hasValue(1);
            assertThat(messages).doesNotContainKeys(LockKeys.readWriteChannel(name),
                    LockKeys.readWriteWriterChannel(name, secondField));
            second.getReadWriteLock(name).writeLock().unlockAsync(102L).get(5, TimeUnit.SECONDS);
        } finally {
            plain.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        assertThat(admin.commands().exists(LockKeys.readWriteLine(name), LockKeys.readWriteDeadlines(name))).isZero();
    }

    /** The writer fields of the places in line, in order. */
    private static List<String> placesInLine(RedisAdmin admin, String name) {
        return admin.commands().lrange(LockKeys.readWriteLine(name), 0, -1).stream()
                .map(place -> place.substring(0, place.indexOf(":write:") + ":write".length())).toList();
    }

    @Test
    void aWriterIsNotStarvedByAContinuousStreamOfReadersOfAnotherClient() throws Exception {
        String name = Clients.uniqueName("rw-line-stream");
        RReadWriteLock readers = clients.open().getReadWriteLock(name);
        RLock writer = clients.open().getReadWriteLock(name).writeLock();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong reads = new AtomicLong();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        List<CompletableFuture<Void>> streams = new java.util.ArrayList<>();
        for (int t = 0; t < 4; t++) {
            streams.add(CompletableFuture.runAsync(() -> {
                // overlapping holds: some reader always holds while the stream runs (bounded by time)
                while (!stop.get() && System.nanoTime() - end < 0) {
                    if (Contention.tryLock(readers.readLock(), 100)) {
                        reads.incrementAndGet();
                        Contention.sleep(20);
                        readers.readLock().unlock();
                    }
                }
            }, pool));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> reads.get() >= 20);
        long start = System.nanoTime();
        boolean written = writer.tryLock(40, TimeUnit.SECONDS);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        if (written) {
            writer.unlock();
        }
        long readsBefore = reads.get();
        await().atMost(Duration.ofSeconds(30)).until(() -> reads.get() > readsBefore + 4);
        stop.set(true);
        CompletableFuture.allOf(streams.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        System.out.printf("the writer got in %d ms after asking, behind a stream of %d reads%n", millis, reads.get());
        assertThat(written).as("the writer got in while the readers kept coming").isTrue();
        // a writer starved until the stream stops waits its whole 40 s: the bound, generous for a busy
        // machine, stays well short of that
        assertThat(millis).isLessThan(20_000);
    }

    @Test
    void aWriteReleaseGrantsTheReadLockToTheWaitingReadersOfOtherClientsBeforeTheNextWriter(RedisEndpoint redis,
            RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("rw-grant");
        LockClient writerClient = clients.open();
        LockClient nextWriterClient = clients.open();
        List<LockClient> readerClients = List.of(clients.open(), clients.open());
        String nextWriterField = nextWriterClient.getId() + ":2:write";
        RedisClient plain = RedisClient.create(redis.uri());
        try (StatefulRedisPubSubConnection<String, String> listener = plain.connectPubSub()) {
            Map<String, List<String>> messages = new ConcurrentHashMap<>();
            listener.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String pattern, String channel, String message) {
                    messages.computeIfAbsent(channel, c -> new java.util.concurrent.CopyOnWriteArrayList<>()).add(message);
                }
            });
            listener.sync().psubscribe(LockKeys.readWriteChannel(name) + "*", LockKeys.grantChannelPrefix(name) + "*");

            writerClient.getReadWriteLock(name).writeLock().lockAsync(-1, TimeUnit.MILLISECONDS, 1L).get(5, TimeUnit.SECONDS);
            CompletableFuture<Void> nextWrite = nextWriterClient.getReadWriteLock(name).writeLock()
                    .lockAsync(-1, TimeUnit.MILLISECONDS, 2L);
            await().atMost(Duration.ofSeconds(30)).until(() -> placesInLine(admin, name).equals(List.of(nextWriterField)));
            List<CompletableFuture<Void>> reads = List.of(
                    readerClients.get(0).getReadWriteLock(name).readLock().lockAsync(-1, TimeUnit.MILLISECONDS, 3L),
                    readerClients.get(1).getReadWriteLock(name).readLock().lockAsync(-1, TimeUnit.MILLISECONDS, 4L));
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> admin.commands().hlen(LockKeys.readWriteReaders(name)) == 2);

            writerClient.getReadWriteLock(name).writeLock().unlockAsync(1L).get(5, TimeUnit.SECONDS);
            CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
            assertThat(admin.commands().hgetall(name)).as("both readers hold once, from the release")
                    .isEqualTo(Map.of("mode", "read", readerClients.get(0).getId() + ":3", "1",
                            readerClients.get(1).getId() + ":4", "1"));
            assertThat(nextWrite).as("the next writer waits for the readers").isNotDone();
            String marker = LockKeys.readWriteChannel(name) + ":marker";
            admin.commands().publish(marker, "m");
            await().atMost(Duration.ofSeconds(30)).until(() -> messages.containsKey(marker));
            assertThat(messages.get(LockKeys.grantChannelPrefix(name) + readerClients.get(0).getId()))
                    .singleElement().asString().startsWith("r:3:");
            assertThat(messages.get(LockKeys.grantChannelPrefix(name) + readerClients.get(1).getId()))
                    .singleElement().asString().startsWith("r:4:");
            assertThat(messages).as("not the next writer's channels")
                    .doesNotContainKeys(LockKeys.readWriteWriterChannel(name, nextWriterField),
                            LockKeys.grantChannelPrefix(name) + nextWriterClient.getId());
            // issue 21: one wake-up on the shared channel, so Redisson's readers join the granted ones
            assertThat(messages.get(LockKeys.readWriteChannel(name))).as("the shared channel").containsExactly("1");

            readerClients.get(0).getReadWriteLock(name).readLock().unlockAsync(3L).get(5, TimeUnit.SECONDS);
            assertThat(nextWrite).isNotDone();
            readerClients.get(1).getReadWriteLock(name).readLock().unlockAsync(4L).get(5, TimeUnit.SECONDS);
            nextWrite.get(5, TimeUnit.SECONDS);
            nextWriterClient.getReadWriteLock(name).writeLock().unlockAsync(2L).get(5, TimeUnit.SECONDS);
        } finally {
            plain.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> admin.keys().stream().noneMatch(k -> k.contains(name)));
    }

    @Test
    void aWriterInLineWhoseClientIsGoneHoldsUpReadersOnlyUntilItsDeadline(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("rw-line-gone");
        RLock holder = clients.open().getReadWriteLock(name).readLock();
        RLock reader = clients.open().getReadWriteLock(name).readLock();
        holder.lockAsync(-1, TimeUnit.MILLISECONDS, 1L).get(5, TimeUnit.SECONDS);
        // a writer that took its place and was never heard of again: its deadline is 3 s away, time enough
        // for the one-shot attempt below to find the gate on a slow machine
        List<String> time = admin.commands().time();
        long now = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
        admin.commands().zadd(LockKeys.readWriteDeadlines(name), now + 3_000, "gone:9:write");
        admin.commands().rpush(LockKeys.readWriteLine(name), "gone:9:write");
        admin.commands().psetex(LockKeys.readWriteGate(name), 3_000, Long.toString(now));

        assertThat(reader.tryLock(0, -1, TimeUnit.MILLISECONDS)).as("a new reader yields to it").isFalse();
        long start = System.nanoTime();
        assertThat(reader.tryLock(30, TimeUnit.SECONDS)).isTrue();
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.printf("a reader got in %d ms after asking, behind a writer gone 3 s before its deadline%n", millis);
        // the deadline when it works; the holder's watchdog lease never ends, so a reader that missed the
        // deadline waits its whole 30 s: the bound between, generous for a busy machine
        assertThat(millis).as("at its deadline, not at a lease").isLessThan(15_000);
        reader.unlock();
        holder.unlockAsync(1L).get(5, TimeUnit.SECONDS);
        assertThat(admin.commands().exists(LockKeys.readWriteLine(name), LockKeys.readWriteGate(name)))
                .as("the last reader's release drops the gone writer").isZero();
    }
}
