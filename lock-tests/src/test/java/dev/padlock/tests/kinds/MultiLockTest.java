package dev.padlock.tests.kinds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.LockObserver;
import dev.padlock.PadlockException;
import dev.padlock.RLock;
import dev.padlock.RedisUnavailableException;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisServers;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import dev.padlock.tests.support.Contention;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The multi lock: all components or none, in one order, rolled back on refusal, failure or interrupt. */
@RedisTest
class MultiLockTest {
    @RegisterExtension
    final Clients clients = new Clients();
    private String prefix;
    private String a;
    private String b;
    private String c;
    private LockClient mine;
    private LockClient theirs;

    @BeforeEach
    void open() {
        prefix = Clients.uniqueName("multi");
        a = prefix + ":a";
        b = prefix + ":b";
        c = prefix + ":c";
        mine = clients.open();
        theirs = clients.open();
    }

    private RLock multi(LockClient client, String... names) {
        RLock[] locks = new RLock[names.length];
        for (int i = 0; i < names.length; i++) {
            locks[i] = client.getLock(names[i]);
        }
        return client.getMultiLock(locks);
    }

    /**
     * Found by the simulator (issue 25): told held with a fixed lease while the first component's
     * lease had run out during the wait for the last one.
     */
    @Test
    void aFixedLeaseHoldsEveryComponentWhenTheLastOneCameAfterTheFirstOnesLease(RedisAdmin admin) throws Exception {
        RLock multi = multi(mine, a, b);
        RLock other = theirs.getLock(b);
        other.lock(60, TimeUnit.SECONDS);
        long owner = 41;
        CompletableFuture<Boolean> held = multi.tryLockAsync(60_000, 800, TimeUnit.MILLISECONDS, owner);
        await().atMost(Duration.ofSeconds(30)).until(() -> admin.commands().exists(a) == 1);
        // a was taken with its 800 ms lease; b comes only once that lease has run out
        await().atMost(Duration.ofSeconds(30)).until(() -> admin.commands().exists(a) == 0);
        other.unlock();

        assertThat(held.get(30, TimeUnit.SECONDS)).isTrue();
        assertThat(mine.getLock(a).isHeldByThread(owner)).as("a, taken first").isTrue();
        assertThat(mine.getLock(b).isHeldByThread(owner)).as("b, taken last").isTrue();
        assertThat(admin.commands().pttl(a)).as("a's lease").isPositive();
        multi.unlockAsync(owner).get(30, TimeUnit.SECONDS);
        assertThat(admin.commands().exists(a, b)).isZero();
    }

    @Test
    void tryLockTakesAllOrNoneWhenOneComponentIsHeldElsewhere(RedisAdmin admin) throws Exception {
        RLock multi = multi(mine, c, a, b);
        RLock other = theirs.getLock(b);
        other.lock(30, TimeUnit.SECONDS);
        long start = System.nanoTime();
        assertThat(multi.tryLock(300, 10_000, TimeUnit.MILLISECONDS)).isFalse();
        // never before its wait is over; the upper bound catches a wait into the 30 s lease, generous for a
        // busy machine
        assertThat(elapsedMillis(start)).isGreaterThanOrEqualTo(300).isLessThan(10_000);
        assertThat(admin.commands().exists(a, c)).as("a, taken before b, was rolled back; c never taken").isZero();
        assertThat(admin.commands().hlen(b)).as("only the other holder's field").isEqualTo(1);
        assertThat(multi.tryLock()).isFalse();
        assertThat(admin.commands().exists(a, c)).isZero();

        other.unlock();
        assertThat(multi.tryLock(1, 10, TimeUnit.SECONDS)).isTrue();
        assertThat(admin.commands().exists(a, b, c)).isEqualTo(3);
        assertThat(multi.isLocked()).isTrue();
        assertThat(multi.isHeldByCurrentThread()).isTrue();
        multi.unlock();
        assertThat(admin.commands().exists(a, b, c)).isZero();
    }

    @Test
    void twoMultiLocksOverTheSameNamesInOppositeOrdersDoNotDeadlock(RedisAdmin admin) throws Exception {
        RLock forward = multi(mine, a, b, c);
        RLock backward = multi(theirs, c, b, a);
        assertThat(forward.getName()).isEqualTo(backward.getName()).isEqualTo("multi[" + a + "," + b + "," + c + "]");
        String counter = prefix + ":counter";
        int threads = 4;
        int rounds = 25;
        long start = System.nanoTime();
        Contention.run(Executors.newFixedThreadPool(threads), threads, task -> {
            RLock lock = task % 2 == 0 ? forward : backward;
            for (int i = 0; i < rounds; i++) {
                lock.lock();
                try {
                    Contention.incrementNonAtomically(admin.commands(), counter);
                } finally {
                    lock.unlock();
                }
            }
        });
        System.out.printf("%d multi-lock acquisitions in opposite orders took %d ms%n", threads * rounds,
                elapsedMillis(start));
        assertThat(admin.commands().get(counter)).isEqualTo(Integer.toString(threads * rounds));
        assertThat(admin.commands().exists(a, b, c)).isZero();
    }

    @Test
    void aPartialAcquisitionIsRolledBackWhenTheSecondServerIsDown(RedisAdmin admin) throws Exception {
        try (RedisServers second = RedisServers.start(1);
                LockClient secondClient = LockClient.create(LockConfig.builder().redisUri(second.uris().get(0))
                        .commandTimeout(Duration.ofMillis(500)).build())) {
            String first = prefix + ":1-first";
            String last = prefix + ":2-second";
            RLock multi = mine.getMultiLock(secondClient.getLock(last), mine.getLock(first));
            assertThat(multi.tryLock(1, 10, TimeUnit.SECONDS)).isTrue();
            multi.unlock();

            second.get(0).stop();
            long start = System.nanoTime();
            try {
                assertThat(multi.tryLock(1, 10, TimeUnit.SECONDS)).isFalse();
            } catch (PadlockException e) {
                System.out.println("tryLock with the second server down threw: " + e);
            }
            assertThat(elapsedMillis(start)).isLessThan(10_000);
            assertThat(admin.commands().exists(first)).as("the first lock was given back").isZero();
            assertThatThrownBy(multi::lock).isInstanceOf(RedisUnavailableException.class);
            assertThat(admin.commands().exists(first)).isZero();

            second.get(0).restart();
            await().atMost(Duration.ofSeconds(30)).until(() -> tryAndUnlock(multi));
            assertThat(admin.commands().exists(first)).isZero();
        }
    }

    /**
     * One owner's acquisitions of a multi lock take turns, and the turns were per lock object (issue
     * 39): an acquisition through a second object for the same components went out beside the
     * first's, and the two rolled back over each other's holds. They are the client's now.
     */
    @Test
    void twoObjectsForOneMultiLockOfAClientTakeTurnsForOneOwner(RedisAdmin admin) throws Exception {
        List<String> started = new CopyOnWriteArrayList<>();
        LockClient observed = clients.open(settings -> settings.observer(new LockObserver() {
            @Override
            public Object acquisitionStarted(String lockName, Kind kind, long threadId) {
                started.add(kind + " " + lockName);
                return null;
            }
        }));
        RLock other = theirs.getLock(b);
        other.lock(60, TimeUnit.SECONDS);
        long owner = 43;
        CompletableFuture<Boolean> first = multi(observed, a, b).tryLockAsync(60_000, -1, TimeUnit.MILLISECONDS, owner);
        // it holds a and waits for b
        await().atMost(Duration.ofSeconds(30)).until(() -> started.contains("LOCK " + b));
        int before = started.size();

        CompletableFuture<Boolean> second = multi(observed, b, a).tryLockAsync(0, -1, TimeUnit.MILLISECONDS, owner);

        assertThat(second.get(30, TimeUnit.SECONDS)).as("one attempt, while the owner's first is in flight").isFalse();
        assertThat(started.subList(before, started.size())).as("the second asked no component: not its turn")
                .containsExactly("MULTI multi[" + a + "," + b + "]");
        other.unlock();
        assertThat(first.get(30, TimeUnit.SECONDS)).isTrue();
        assertThat(observed.getLock(a).getHoldCountAsync(owner).get(30, TimeUnit.SECONDS)).isOne();
        assertThat(observed.getLock(b).getHoldCountAsync(owner).get(30, TimeUnit.SECONDS)).isOne();
        multi(observed, a, b).unlockAsync(owner).get(30, TimeUnit.SECONDS);
        assertThat(admin.commands().exists(a, b)).isZero();
    }

    @Test
    void componentsAreReentrantThroughTheMultiLock(RedisAdmin admin) {
        RLock aLock = mine.getLock(a);
        RLock multi = mine.getMultiLock(aLock, mine.getLock(b));
        aLock.lock(30, TimeUnit.SECONDS);
        multi.lock(30, TimeUnit.SECONDS);
        multi.lock(30, TimeUnit.SECONDS);
        assertThat(multi.getHoldCount()).isEqualTo(2);
        assertThat(aLock.getHoldCount()).isEqualTo(3);
        multi.unlock();
        assertThat(multi.getHoldCount()).isEqualTo(1);
        assertThat(multi.isHeldByCurrentThread()).isTrue();
        multi.unlock();
        assertThat(multi.isHeldByCurrentThread()).isFalse();
        assertThat(multi.isLocked()).as("b is free").isFalse();
        assertThat(aLock.getHoldCount()).isEqualTo(1);
        assertThat(admin.commands().exists(b)).isZero();
        aLock.unlock();
        assertThat(admin.commands().exists(a)).isZero();
    }

    @Test
    void anUnlockByANonHolderThrowsAndStillUnlocksWhatTheCallerHeld(RedisAdmin admin) throws Exception {
        RLock multi = multi(mine, a, b);
        assertThatThrownBy(multi::unlock).isInstanceOf(IllegalMonitorStateException.class);

        multi.lock(30, TimeUnit.SECONDS);
        CompletableFuture<Throwable> fromAnotherThread = CompletableFuture.supplyAsync(() -> {
            try {
                multi.unlock();
                return null;
            } catch (RuntimeException e) {
                return e;
            }
        });
        assertThat(fromAnotherThread.get(10, TimeUnit.SECONDS)).isInstanceOf(IllegalMonitorStateException.class);
        assertThat(multi.isHeldByCurrentThread()).isTrue();
        multi.unlock();

        mine.getLock(b).lock(30, TimeUnit.SECONDS); // holds b only
        assertThatThrownBy(multi::unlock).isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining(a);
        assertThat(admin.commands().exists(a, b)).as("b was unlocked all the same").isZero();
    }

    @Test
    void theAsynchronousTwinsWorkForAnExplicitOwner(RedisAdmin admin) throws Exception {
        RLock multi = multi(mine, a, b);
        RLock rival = multi(theirs, b, a);
        assertThat(multi.tryLockAsync(0, 10, TimeUnit.SECONDS, 7L).get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(multi.isLockedAsync().get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(multi.getHoldCountAsync(7L).get(5, TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(multi.getHoldCountAsync(8L).get(5, TimeUnit.SECONDS)).isZero();
        assertThat(multi.isHeldByThread(7L)).isTrue();
        assertThat(multi.remainTimeToLiveAsync().get(5, TimeUnit.SECONDS)).isBetween(1L, 10_000L);
        assertThat(rival.tryLockAsync(0, 10, TimeUnit.SECONDS, 7L).get(5, TimeUnit.SECONDS)).isFalse();

        CompletableFuture<Void> notHeld = multi.unlockAsync(8L);
        assertThat(notHeld).failsWithin(5, TimeUnit.SECONDS).withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(IllegalMonitorStateException.class);

        CompletableFuture<Void> waiting = rival.lockAsync(10, TimeUnit.SECONDS, 9L);
        await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(10)).until(() -> !waiting.isDone());
        multi.unlockAsync(7L).get(5, TimeUnit.SECONDS);
        waiting.get(30, TimeUnit.SECONDS);
        assertThat(rival.isHeldByThread(9L)).isTrue();
        assertThat(multi.isHeldByThread(7L)).isFalse();

        mine.getLock(a).forceUnlock();
        assertThat(multi.remainTimeToLiveAsync().get(5, TimeUnit.SECONDS)).as("a is free").isEqualTo(-2L);
        assertThat(multi.isLocked()).isFalse();
        assertThat(multi.forceUnlockAsync().get(5, TimeUnit.SECONDS)).as("b was held").isTrue();
        assertThat(multi.forceUnlockAsync().get(5, TimeUnit.SECONDS)).isFalse();
        assertThat(admin.commands().exists(a, b)).isZero();
    }

    @Test
    void cancellingAnAsynchronousAcquisitionGivesBackWhatItTook(RedisAdmin admin) throws Exception {
        RLock multi = multi(mine, a, b);
        RLock other = theirs.getLock(b);
        other.lock(30, TimeUnit.SECONDS);
        CompletableFuture<Boolean> waiting = multi.tryLockAsync(20, 10, TimeUnit.SECONDS, 5L);
        await().atMost(Duration.ofSeconds(30)).until(() -> admin.commands().exists(a) == 1);
        assertThat(waiting.cancel(true)).isTrue();
        await().atMost(Duration.ofSeconds(30)).until(() -> admin.commands().exists(a) == 0);
        assertThat(admin.commands().hlen(b)).isEqualTo(1);
        other.unlock();
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(10)).until(() -> admin.commands().exists(a, b) == 0);
    }

    @Test
    void anInterruptedLockInterruptiblyThrowsAndLeavesNothingBehind(RedisAdmin admin) throws Exception {
        RLock multi = multi(mine, a, b);
        RLock other = theirs.getLock(b);
        other.lock(30, TimeUnit.SECONDS);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread thread = new Thread(() -> {
            try {
                multi.lockInterruptibly();
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        thread.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> admin.commands().exists(a) == 1);
        thread.interrupt();
        thread.join(30_000);
        assertThat(thread.isAlive()).isFalse();
        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
        assertThat(admin.commands().exists(a)).as("a was rolled back before the throw").isZero();
        assertThat(admin.commands().hlen(b)).isEqualTo(1);
        other.unlock();

        Thread.currentThread().interrupt();
        assertThatThrownBy(multi::lockInterruptibly).isInstanceOf(InterruptedException.class);
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> multi.tryLock(1, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        assertThat(Thread.interrupted()).isFalse();
        // the client's place in b's client line may outlive the waiter that took it: theirs' unlock
        // can grant b to it, and this client gives that grant back, on its own time
        await().atMost(Duration.ofSeconds(30)).until(() -> admin.commands().exists(a, b) == 0);
    }

    @Test
    void badInputFailsAtTheCall() {
        RLock aLock = mine.getLock(a);
        RLock multi = multi(mine, b, a);
        assertThat(multi.getName()).isEqualTo("multi[" + a + "," + b + "]");
        assertThatThrownBy(() -> mine.getMultiLock((RLock[]) null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> mine.getMultiLock(aLock, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> mine.getMultiLock()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> mine.getMultiLock(aLock, aLock)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> multi.tryLock(-1, TimeUnit.SECONDS)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> multi.tryLock(1, 1, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> multi.lock(1, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> multi.lockInterruptibly(1, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> multi.tryLockAsync(-1, 1, TimeUnit.SECONDS, 1L))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> multi.tryLockAsync(1, 1, null, 1L)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> multi.lockAsync(1, null, 1L)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(multi::newCondition).isInstanceOf(UnsupportedOperationException.class);
        assertThat(multi.isLocked()).isFalse();
    }

    private static boolean tryAndUnlock(RLock lock) {
        try {
            if (lock.tryLock(0, 10, TimeUnit.SECONDS)) {
                lock.unlock();
                return true;
            }
            return false;
        } catch (PadlockException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static long elapsedMillis(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }
}
