package dev.padlock.tests.behaviour;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.LockObserver;
import dev.padlock.LockObserver.AcquisitionEnd;
import dev.padlock.LockObserver.HoldEnd;
import dev.padlock.LockObserver.Kind;
import dev.padlock.LockObserver.Outcome;
import dev.padlock.LockObserver.RenewalOutcome;
import dev.padlock.RLock;
import dev.padlock.RReadWriteLock;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link LockObserver}: one call per event, in order, with what a metrics adapter needs. */
@RedisTest
class ObserverTest {
    @RegisterExtension
    final Clients clients = new Clients();

    /** Records every call as a line; hands contexts through so the test can check correlation. */
    static final class Recorder implements LockObserver {
        final List<String> events = new CopyOnWriteArrayList<>();
        final List<AcquisitionEnd> ends = new CopyOnWriteArrayList<>();
        final List<HoldEnd> holds = new CopyOnWriteArrayList<>();
        final AtomicInteger renewed = new AtomicInteger();
        final AtomicInteger contexts = new AtomicInteger();

        @Override
        public Object acquisitionStarted(String lockName, Kind kind, long threadId) {
            events.add("start " + kind.tag());
            return "acq-" + contexts.incrementAndGet();
        }

        @Override
        public Object acquisitionEnded(AcquisitionEnd end, Object context) {
            assertThat(context).asString().startsWith("acq-");
            ends.add(end);
            events.add("end " + end.kind().tag() + " " + end.outcome() + (end.reentry() ? " reentry" : ""));
            return "hold-" + context;
        }

        @Override
        public void released(HoldEnd end, Object holdContext) {
            assertThat(holdContext).asString().startsWith("hold-acq-");
            holds.add(end);
            events.add("released " + end.kind().tag() + (end.lapsed() ? " lapsed" : ""));
        }

        @Override
        public void leasesRenewed(int owners, RenewalOutcome outcome) {
            if (outcome == RenewalOutcome.RENEWED) {
                renewed.addAndGet(owners);
            }
        }

        @Override
        public void leaseLost(String lockName, Kind kind, long threadId, Object holdContext) {
            events.add("lost " + kind.tag() + " " + (holdContext != null));
        }
    }

    @Test
    void aHoldIsOneAcquisitionAndOneReleaseWhateverItsReentries() throws Exception {
        Recorder recorder = new Recorder();
        LockClient client = clients.open(b -> b.observer(recorder));
        RLock lock = client.getLock(Clients.uniqueName("observed"));
        lock.lock();
        long lockedAt = System.nanoTime(); // the hold started before lock() returned
        lock.lock();
        Thread.sleep(20); // the work done under the lock, so the hold lasts a while; nothing waits on it
        lock.unlock();
        long heldAtLeast = System.nanoTime() - lockedAt; // and ended after the last unlock() was called
        lock.unlock();
        assertThat(recorder.events).containsExactly("start lock", "end lock ACQUIRED", "start lock",
                "end lock ACQUIRED reentry", "released lock");
        assertThat(recorder.holds.get(0).heldNanos()).as("the hold as timed here").isGreaterThanOrEqualTo(heldAtLeast);
        assertThat(recorder.ends.get(0).threadId()).isEqualTo(Thread.currentThread().getId());
    }

    @Test
    void everyOutcomeIsReported() throws Exception {
        Recorder recorder = new Recorder();
        LockClient client = clients.open(b -> b.observer(recorder));
        LockClient other = clients.open();
        String name = Clients.uniqueName("outcomes");
        other.getLock(name).lock();

        RLock lock = client.getLock(name);
        assertThat(lock.tryLock()).isFalse();
        assertThat(lock.tryLock(50, TimeUnit.MILLISECONDS)).isFalse();

        CompletableFuture<Boolean> cancelled = lock.tryLockAsync(10, -1, TimeUnit.SECONDS, 7);
        cancelled.cancel(false);

        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                lock.lockInterruptibly();
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        waiter.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> recorder.events.stream().filter(e -> e.startsWith("start")).count() == 4);
        waiter.interrupt();
        waiter.join(30_000);
        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);

        client.close();
        CompletableFuture<Boolean> closed = new CompletableFuture<>();
        try {
            lock.tryLock();
        } catch (IllegalStateException expected) {
            closed.complete(true);
        }
        assertThat(closed).isCompletedWithValue(true);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(recorder.ends).extracting(AcquisitionEnd::outcome)
                .containsExactlyInAnyOrder(Outcome.BUSY, Outcome.TIMED_OUT, Outcome.CANCELLED, Outcome.INTERRUPTED));
        assertThat(recorder.holds).isEmpty();
    }

    @Test
    void aLocalHandOffIsFlaggedAndKindsAreTold() throws Exception {
        Recorder recorder = new Recorder();
        LockClient client = clients.open(b -> b.observer(recorder));
        RLock lock = client.getLock(Clients.uniqueName("handoff"));
        List<Thread> threads = new java.util.ArrayList<>();
        for (int t = 0; t < 4; t++) {
            threads.add(new Thread(() -> {
                for (int i = 0; i < 50; i++) {
                    lock.lock();
                    lock.unlock();
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join(30_000);
        }
        assertThat(recorder.holds).hasSize(200);
        assertThat(recorder.ends).hasSize(200).allSatisfy(e -> assertThat(e.outcome()).isEqualTo(Outcome.ACQUIRED));
        assertThat(recorder.ends).as("some holds came by local hand-off").anyMatch(AcquisitionEnd::localHandOff);

        client.getFairLock(Clients.uniqueName("fair")).lock();
        RReadWriteLock rw = client.getReadWriteLock(Clients.uniqueName("rw"));
        rw.readLock().lock();
        rw.readLock().unlock();
        rw.writeLock().lock();
        client.getFencedLock(Clients.uniqueName("fenced")).lockAndGetToken();
        client.getSpinLock(Clients.uniqueName("spin")).lock();
        assertThat(recorder.ends).extracting(e -> e.kind()).contains(Kind.FAIR, Kind.READ, Kind.WRITE, Kind.FENCED,
                Kind.SPIN);
    }

    @Test
    void multiAndRedLocksAreObservedAsTheirOwnKindOneHoldPerOuterHold() {
        Recorder recorder = new Recorder();
        LockClient client = clients.open(b -> b.observer(recorder));
        String name = Clients.uniqueName("composite");
        RLock multi = client.getMultiLock(client.getLock(name + "-a"), client.getLock(name + "-b"));
        multi.lock();
        multi.lock();
        multi.unlock();
        multi.unlock();
        RLock red = client.getRedLock(client.getLock(name + "-1"), client.getLock(name + "-2"), client.getLock(name + "-3"));
        assertThat(red.tryLock()).isTrue();
        red.unlock();
        assertThat(recorder.ends).filteredOn(e -> e.kind() == Kind.MULTI).extracting(AcquisitionEnd::reentry)
                .containsExactly(false, true);
        assertThat(recorder.ends).filteredOn(e -> e.kind() == Kind.RED).hasSize(1);
        assertThat(recorder.holds).filteredOn(h -> h.kind() == Kind.MULTI).singleElement()
                .satisfies(h -> assertThat(h.lapsed()).isFalse());
        assertThat(recorder.holds).filteredOn(h -> h.kind() == Kind.RED).hasSize(1);
        assertThat(recorder.holds).filteredOn(h -> h.kind() == Kind.LOCK).as("each component's own hold").hasSize(5);
    }

    @Test
    void renewalsAndALostLeaseAreTold(RedisAdmin admin) {
        Recorder recorder = new Recorder();
        // renewed every 500 ms: a stall of a second on a busy machine does not lose the lease before the DEL
        LockClient client = clients.open(b -> b.observer(recorder).watchdogTimeout(Duration.ofMillis(1_500)));
        String name = Clients.uniqueName("lost");
        client.getLock(name).lock();
        await().atMost(Duration.ofSeconds(30)).until(() -> recorder.renewed.get() >= 2);
        admin.commands().del(name);
        await().atMost(Duration.ofSeconds(30)).until(() -> recorder.events.contains("lost lock true"));
        assertThat(client.getLock(name).tryLock()).isTrue(); // a new hold, not a re-entry
        assertThat(recorder.ends.get(recorder.ends.size() - 1).reentry()).isFalse();
    }

    @Test
    void anUnlockAfterTheLeaseRanOutEndsTheHoldAsLapsed() throws Exception {
        Recorder recorder = new Recorder();
        LockClient client = clients.open(b -> b.observer(recorder));
        RLock lock = client.getLock(Clients.uniqueName("lapsed"));
        lock.lock(50, TimeUnit.MILLISECONDS);
        await().atMost(Duration.ofSeconds(30)).until(() -> !lock.isLocked());
        try {
            lock.unlock();
        } catch (IllegalMonitorStateException expected) {
            // the lease ran out
        }
        assertThat(recorder.events).endsWith("released lock lapsed");
    }

    @Test
    void anObserverThatThrowsChangesNothing() {
        LockObserver broken = new LockObserver() {
            @Override
            public Object acquisitionStarted(String lockName, Kind kind, long threadId) {
                throw new IllegalStateException("broken observer");
            }

            @Override
            public Object acquisitionEnded(AcquisitionEnd end, Object context) {
                throw new IllegalStateException("broken observer");
            }

            @Override
            public void released(HoldEnd end, Object holdContext) {
                throw new IllegalStateException("broken observer");
            }
        };
        LockClient client = clients.open(b -> b.observer(broken));
        RLock lock = client.getLock(Clients.uniqueName("broken"));
        assertThat(lock.tryLock()).isTrue();
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
    }
}
