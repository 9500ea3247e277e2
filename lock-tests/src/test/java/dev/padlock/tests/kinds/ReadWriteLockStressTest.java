package dev.padlock.tests.kinds;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.RReadWriteLock;
import dev.padlock.tests.support.Clients;
import dev.padlock.tests.support.Contention;
import dev.padlock.tests.support.RandomCalls;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.junit.RedisTest;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The read-write lock's line of writers, hall of readers and grants (issue 13) under a seeded
 * random mix of what callers do, reads about 70 % of it: waits that run out, one-shot attempts,
 * unbounded waits, asynchronous waits cancelled at a random moment (a grant may meet a waiter as it
 * gives up), fixed and watchdog leases, threads of three clients. Bounded: 9 owners x 150 steps,
 * each call bounded. It checks that a writer never holds beside anyone, that every unbounded wait
 * ends, and that once everyone is done no key of the lock is left (hash, line, deadlines, gate,
 * turn, hall, lease keys, since).
 */
@RedisTest
class ReadWriteLockStressTest {
    private static final long SEED = Long.getLong("padlock.rw.seed", 13L);
    private static final int STEPS = 150;

    @RegisterExtension
    final Clients clients = new Clients();

    /** Who holds, as the owners saw it: checked on every entry, under one monitor. */
    private int readers;
    private String writer;

    @Test
    void randomReadsWritesGiveUpsAndCancelsNeverLetAWriterShareNorStrandALock(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("rw-stress");
        List<LockClient> three = List.of(clients.open(), clients.open(), clients.open());
        AtomicInteger reads = new AtomicInteger();
        AtomicInteger writes = new AtomicInteger();
        AtomicInteger cancels = new AtomicInteger();
        Random seeds = new Random(SEED);
        long[] ownerSeeds = new long[9];
        for (int i = 0; i < ownerSeeds.length; i++) {
            ownerSeeds[i] = seeds.nextLong();
        }
        Contention.run(Executors.newFixedThreadPool(ownerSeeds.length), ownerSeeds.length, owner -> {
            Random random = new Random(ownerSeeds[owner]);
            RReadWriteLock readWrite = three.get(owner % 3).getReadWriteLock(name);
            for (int step = 0; step < STEPS; step++) {
                boolean write = random.nextInt(100) < 30;
                RLock lock = write ? readWrite.writeLock() : readWrite.readLock();
                String me = "owner " + owner + (write ? " writing" : " reading") + " at step " + step;
                AtomicInteger count = write ? writes : reads;
                try {
                    RandomCalls.Outcome outcome = RandomCalls.step(lock, random, 1_000_000L + owner * 1_000L + step,
                            () -> hold(write, me, count, random));
                    if (outcome == RandomCalls.Outcome.CANCELLED) {
                        cancels.incrementAndGet();
                    }
                } catch (InterruptedException | AssertionError e) {
                    throw new AssertionError(me + ": " + e, e);
                }
            }
        });
        System.out.printf("read-write stress (seed %d): %d reads, %d writes, %d cancels%n", SEED, reads.get(),
                writes.get(), cancels.get());
        assertThat(reads.get()).as("reads got in").isPositive();
        assertThat(writes.get()).as("writes got in").isPositive();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(admin.keys())
                .as("every key of the lock gone").noneMatch(key -> key.contains(name)));
    }

    /** Holds for a moment, failing when a writer would share the lock with anyone. */
    private void hold(boolean write, String who, AtomicInteger count, Random random) {
        synchronized (this) {
            if (write) {
                assertThat(writer).as("%s got in while %s wrote", who, writer).isNull();
                assertThat(readers).as("%s got in while readers read", who).isZero();
                writer = who;
            } else {
                assertThat(writer).as("%s got in while %s wrote", who, writer).isNull();
                readers++;
            }
        }
        count.incrementAndGet();
        if (random.nextBoolean()) {
            Contention.sleep(random.nextInt(3));
        }
        synchronized (this) {
            if (write) {
                writer = null;
            } else {
                readers--;
            }
        }
    }
}
