package dev.padlock.tests.kinds;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.internal.PadlockClient;
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
                try {
                    RandomCalls.Outcome outcome = RandomCalls.step(lock, random, 1_000_000L + owner * 1_000L + step,
                            () -> hold(holder, me, acquisitions));
                    if (outcome == RandomCalls.Outcome.CANCELLED) {
                        cancels.incrementAndGet();
                    }
                } catch (InterruptedException | AssertionError e) {
                    throw new AssertionError(me + " step " + step + ": " + e + "\n" + state(admin, name, three), e);
                }
            }
        });
        System.out.printf("fair stress (seed %d): %d acquisitions, %d cancels%n", SEED, acquisitions.get(), cancels.get());
        assertThat(acquisitions.get()).as("the mix acquired at all").isGreaterThan(STEPS);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(admin.commands()
                .exists(name, "padlock_fair_queue:{" + name + "}")).as("lock and line gone").isZero());
    }

    /** What Redis and each client know of the lock, for a failure's message. */
    private static String state(RedisAdmin admin, String name, List<LockClient> clients) {
        StringBuilder state = new StringBuilder();
        try {
            state.append("lock ").append(admin.commands().hgetall(name))
                    .append(", PTTL ").append(admin.commands().pttl(name))
                    .append("\nline ").append(admin.commands().lrange("padlock_fair_queue:{" + name + "}", 0, -1));
        } catch (RuntimeException e) {
            state.append("Redis did not say: ").append(e);
        }
        for (LockClient client : clients) {
            state.append("\nclient ").append(client.getId()).append(": ")
                    .append(((PadlockClient) client).describeLocalQueues());
        }
        return state.toString();
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
