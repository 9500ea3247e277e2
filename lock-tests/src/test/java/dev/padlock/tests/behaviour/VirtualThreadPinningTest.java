package dev.padlock.tests.behaviour;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.padlock.LockClient;
import dev.padlock.LockLease;
import dev.padlock.RLock;
import dev.padlock.tests.support.Clients;
import dev.padlock.testing.junit.RedisTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * 10,000 virtual threads contend on a few locks (issue 27), half through the thread-id API and half
 * through leases, with a JFR recording of {@code jdk.VirtualThreadPinned} at a threshold of zero:
 * no carrier thread may be pinned while a virtual thread waits for a lock or for Redis. Runs on
 * JDK 21+ (CI's JDK 25 leg); skipped on 17.
 */
@RedisTest
class VirtualThreadPinningTest {
    private static final int THREADS = 10_000;
    private static final int LOCKS = 4;

    @RegisterExtension
    final Clients clients = new Clients();

    @Test
    void tenThousandVirtualThreadsContendWithoutPinningACarrier() throws Exception {
        assumeTrue(Runtime.version().feature() >= 21, "virtual threads need JDK 21+");
        LockClient client = clients.open();
        String name = Clients.uniqueName("pinning");
        List<RLock> locks = new ArrayList<>();
        for (int i = 0; i < LOCKS; i++) {
            locks.add(client.getLock(name + ":" + i));
        }
        AtomicInteger[] holders = new AtomicInteger[LOCKS];
        for (int i = 0; i < LOCKS; i++) {
            holders[i] = new AtomicInteger();
        }
        AtomicInteger doubles = new AtomicInteger();
        // a first round loads the classes of every path: class loading may pin a carrier, once per class
        contend(locks, holders, doubles, 400);
        Path dump = Files.createTempFile("padlock-pinning", ".jfr");
        try (Recording recording = new Recording()) {
            recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
            recording.start();
            contend(locks, holders, doubles, THREADS);
            recording.stop();
            recording.dump(dump);
        }
        List<String> pinned = new ArrayList<>();
        for (RecordedEvent event : RecordingFile.readAllEvents(dump)) {
            if (event.getEventType().getName().equals("jdk.VirtualThreadPinned")) {
                pinned.add(event.getStackTrace() == null ? event.toString()
                        : event.getStackTrace().getFrames().subList(0,
                                Math.min(12, event.getStackTrace().getFrames().size())).toString());
            }
        }
        Files.deleteIfExists(dump);
        System.out.printf("virtual threads: %d acquisitions on %d locks, %d pinned events%n", THREADS, LOCKS,
                pinned.size());
        assertThat(doubles.get()).isZero();
        assertThat(pinned).as("pinned carriers").isEmpty();
        for (RLock lock : locks) {
            assertThat(lock.isLocked()).isFalse();
        }
    }

    /** {@code threads} virtual threads, one acquisition each, half by leases and half by thread id. */
    private static void contend(List<RLock> locks, AtomicInteger[] holders, AtomicInteger doubles, int threads)
            throws Exception {
        ExecutorService virtual = (ExecutorService) Executors.class
                .getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        try {
            List<Future<?>> done = new ArrayList<>(threads);
            for (int t = 0; t < threads; t++) {
                int which = t % LOCKS;
                boolean lease = t % 2 == 0;
                done.add(virtual.submit(() -> {
                    RLock lock = locks.get(which);
                    LockLease held = lease ? lock.acquire() : null;
                    if (!lease) {
                        lock.lock();
                    }
                    try {
                        if (holders[which].incrementAndGet() != 1) {
                            doubles.incrementAndGet();
                        }
                        holders[which].decrementAndGet();
                    } finally {
                        if (lease) {
                            held.release();
                        } else {
                            lock.unlock();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> future : done) {
                future.get(10, TimeUnit.MINUTES); // a bound that catches a hang only
            }
        } finally {
            virtual.shutdown();
        }
    }
}
