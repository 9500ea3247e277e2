package dev.padlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The fair lock's line and grants (issue 13) under a seeded random mix of what callers do: waits
 * that run out, one-shot attempts, unbounded waits, asynchronous waits cancelled at a random
 * moment (a grant may meet a waiter as it gives up), fixed and watchdog leases, threads of three
 * clients. Bounded: 9 owners x 100 steps, each call bounded. It checks that no two owners ever hold
 * at once, that every unbounded wait ends, and that once everyone is done the lock and its line
 * are gone.
 */
@RedisTest
class FairLockStressTest {
    private static final long SEED = Long.getLong("padlock.fair.seed", 13L);
    private static final int STEPS = 100;

    @RegisterExtension
    final Clients clients = new Clients();

    @Test
    void randomWaitsGiveUpsAndCancelsNeverMakeTwoHoldersNorStrandALock(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("fair-stress");
        List<LockClient> three = List.of(clients.open(), clients.open(), clients.open());
        AtomicReference<String> holder = new AtomicReference<>();
        AtomicInteger acquisitions = new AtomicInteger();
        AtomicInteger cancels = new AtomicInteger();
        Random seeds = new Random(SEED);
        long[] ownerSeeds = new long[9];
        for (int i = 0; i < ownerSeeds.length; i++) {
            ownerSeeds[i] = seeds.nextLong();
        }
        Contention.run(Executors.newFixedThreadPool(ownerSeeds.length), ownerSeeds.length, owner -> {
            Random random = new Random(ownerSeeds[owner]);
            RLock lock = three.get(owner % 3).getFairLock(name);
            String me = "owner " + owner;
            for (int step = 0; step < STEPS; step++) {
                int choice = random.nextInt(100);
                long lease = random.nextBoolean() ? -1 : 2_000;
                boolean acquired;
                try {
                    if (choice < 50) {
                        acquired = lock.tryLock(50 + random.nextInt(350), lease, TimeUnit.MILLISECONDS);
                    } else if (choice < 65) {
                        acquired = lock.tryLock();
                    } else if (choice < 80) {
                        // an unbounded wait (as lock(), for this thread) must end
                        lock.lockAsync(lease, TimeUnit.MILLISECONDS, Thread.currentThread().getId()).get(30, TimeUnit.SECONDS);
                        acquired = true;
                    } else {
                        long threadId = 1_000_000L + owner * 1_000L + step;
                        CompletableFuture<Boolean> call = lock.tryLockAsync(2_000, lease, TimeUnit.MILLISECONDS, threadId);
                        Thread.sleep(random.nextInt(30));
                        if (call.cancel(true)) {
                            cancels.incrementAndGet();
                            continue; // given up: a hold that landed meanwhile is released by the cancel
                        }
                        if (call.get(10, TimeUnit.SECONDS)) {
                            hold(holder, me + " async", acquisitions);
                            lock.unlockAsync(threadId).get(10, TimeUnit.SECONDS);
                        }
                        continue;
                    }
                } catch (InterruptedException | ExecutionException | TimeoutException | CancellationException e) {
                    throw new AssertionError(me + " step " + step + ": " + e, e);
                }
                if (acquired) {
                    hold(holder, me, acquisitions);
                    lock.unlock();
                }
            }
        });
        System.out.printf("fair stress (seed %d): %d acquisitions, %d cancels%n", SEED, acquisitions.get(), cancels.get());
        assertThat(acquisitions.get()).as("the mix acquired at all").isGreaterThan(STEPS);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(admin.commands()
                .exists(name, "padlock_fair_queue:{" + name + "}")).as("lock and line gone").isZero());
    }

    /** Holds for a moment, failing when another owner holds too. */
    private static void hold(AtomicReference<String> holder, String who, AtomicInteger acquisitions) {
        String other = holder.getAndSet(who);
        assertThat(other).as("%s got the lock while %s held it", who, other).isNull();
        acquisitions.incrementAndGet();
        Contention.sleep(1);
        assertThat(holder.compareAndSet(who, null)).as("%s still the only holder", who).isTrue();
    }
}
