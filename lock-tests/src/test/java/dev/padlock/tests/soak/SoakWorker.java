package dev.padlock.tests.soak;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RFencedLock;
import dev.padlock.RLock;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A worker JVM of the fault-schedule soak ({@link SoakRun}): {@code threads} threads loop on ONE
 * lock name, through an {@link RLock} and an {@link RFencedLock} of that name, with watchdog and
 * fixed leases, until the run's time is up. A fenced holder writes its token to the fenced
 * resource ({@link FencedResource}, on a second Redis that is never faulted). Every event goes to
 * the worker's {@link SoakLog}.
 *
 * <p>Control goes through the resource's Redis, which stays up: the worker {@code INCR}s
 * {@code <run>:ready}, waits (bounded) in {@code BLPOP <run>:go}, and a poller thread takes
 * {@code <run>:stall:<index>} (milliseconds) when the controller sets it: the next thread of this
 * worker that acquires with a fixed lease then sleeps that long inside its critical section (a
 * holder paused past its lease). The seed and the worker and thread indexes drive every choice.
 *
 * <p>Exit codes: 0 done, 1 an error, 2 no go signal, 3 a thread did not finish in time. The JVM
 * halts at the end whatever threads a library left behind.
 *
 * <p>Arguments: {@code <lockUri> <resourceUri> <run> <lockName> <index> <threads> <seed>
 * <durationMs> <watchdogMs> <commandTimeoutMs> <log>}.
 */
public final class SoakWorker {

    static final int EXIT_OK = 0;
    static final int EXIT_ERROR = 1;
    static final int EXIT_NO_GO = 2;
    static final int EXIT_TIMEOUT = 3;

    /** The wait of every bounded acquisition: longer than any outage in the schedule. */
    static final long WAIT_MS = 5_000;
    /** The fixed lease. */
    static final long LEASE_MS = 1_000;

    private static final Duration GO_TIMEOUT = Duration.ofSeconds(60);
    /** How long after the run's end the threads may take to finish their last iteration. */
    private static final Duration FINISH_TIMEOUT = Duration.ofSeconds(30);

    /** The calls a thread picks from, each iteration. */
    enum Op {
        TRY_FIXED, TRY_WATCHDOG, LOCK_WATCHDOG, LOCK_FIXED, FENCED_TRY_FIXED, FENCED_TRY_WATCHDOG, FENCED_LOCK;

        long waitMs() {
            return switch (this) {
                case LOCK_WATCHDOG, LOCK_FIXED, FENCED_LOCK -> -1;
                case TRY_FIXED, TRY_WATCHDOG, FENCED_TRY_FIXED, FENCED_TRY_WATCHDOG -> WAIT_MS;
            };
        }

        long leaseMs() {
            return switch (this) {
                case TRY_FIXED, LOCK_FIXED, FENCED_TRY_FIXED -> LEASE_MS;
                case TRY_WATCHDOG, LOCK_WATCHDOG, FENCED_TRY_WATCHDOG, FENCED_LOCK -> 0;
            };
        }

        boolean fenced() {
            return switch (this) {
                case FENCED_TRY_FIXED, FENCED_TRY_WATCHDOG, FENCED_LOCK -> true;
                case TRY_FIXED, TRY_WATCHDOG, LOCK_WATCHDOG, LOCK_FIXED -> false;
            };
        }
    }

    private SoakWorker() {
    }

    public static void main(String[] args) {
        int code;
        try {
            code = run(args);
        } catch (Throwable e) {
            e.printStackTrace();
            code = EXIT_ERROR;
        }
        System.out.flush();
        System.err.flush();
        Runtime.getRuntime().halt(code);
    }

    private static int run(String[] args) throws Exception {
        if (args.length != 11) {
            throw new IllegalArgumentException("usage: SoakWorker <lockUri> <resourceUri> <run> <lockName> <index> "
                    + "<threads> <seed> <durationMs> <watchdogMs> <commandTimeoutMs> <log>; got " + args.length);
        }
        String lockUri = args[0];
        String resourceUri = args[1];
        String run = args[2];
        String lockName = args[3];
        int index = Integer.parseInt(args[4]);
        int threads = Integer.parseInt(args[5]);
        long seed = Long.parseLong(args[6]);
        long durationMs = Long.parseLong(args[7]);
        long watchdogMs = Long.parseLong(args[8]);
        long commandTimeoutMs = Long.parseLong(args[9]);
        Path logFile = Path.of(args[10]);

        RedisURI resourceRedisUri = RedisURI.create(resourceUri);
        resourceRedisUri.setTimeout(GO_TIMEOUT.plusSeconds(5));
        RedisClient resourceClient = RedisClient.create(resourceRedisUri);
        List<Thread> running = new ArrayList<>();
        try (SoakLog log = new SoakLog(logFile);
                StatefulRedisConnection<String, String> control = resourceClient.connect();
                StatefulRedisConnection<String, String> resourceConnection = resourceClient.connect();
                LockClient padlock = LockClient.create(LockConfig.builder()
                        .redisUri(lockUri)
                        .watchdogTimeout(Duration.ofMillis(watchdogMs))
                        .commandTimeout(Duration.ofMillis(commandTimeoutMs))
                        .leaseLostListener((name, threadId) -> log.write("LOST", SoakLog.nowMicros(), threadId))
                        .build())) {
            log.write("START", SoakLog.nowMicros(), ProcessHandle.current().pid());
            FencedResource resource = new FencedResource(resourceConnection.sync(), run);
            RLock lock = padlock.getLock(lockName);
            RFencedLock fenced = padlock.getFencedLock(lockName);
            AtomicLong pendingStall = new AtomicLong();
            AtomicLong acquisitions = new AtomicLong();
            CountDownLatch go = new CountDownLatch(1);
            long[] endMicros = new long[1];
            AtomicReference<Throwable> failure = new AtomicReference<>();
            for (int t = 0; t < threads; t++) {
                Random random = new Random(seed * 1_000_003L + index * 1_009L + t);
                Loop loop = new Loop(t, "w" + index + "t" + t, random, lock, fenced, resource, log, pendingStall,
                        acquisitions);
                Thread thread = new Thread(() -> {
                    try {
                        go.await();
                        loop.run(endMicros[0]);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }, "soak-" + index + "-" + t);
                thread.setUncaughtExceptionHandler((dead, e) -> {
                    failure.compareAndSet(null, e);
                    log.write("END", SoakLog.nowMicros(), acquisitions.get(), "thread", dead.getName(), "died", e);
                });
                log.write("THREAD", t, thread.getId());
                running.add(thread);
                thread.start();
            }

            RedisCommands<String, String> commands = control.sync();
            commands.incr(run + ":ready");
            KeyValue<String, String> signal = commands.blpop(GO_TIMEOUT.toSeconds(), run + ":go");
            if (signal == null || !signal.hasValue()) {
                System.err.println("worker " + index + ": no go signal within " + GO_TIMEOUT);
                return EXIT_NO_GO;
            }
            long began = System.nanoTime();
            endMicros[0] = SoakLog.nowMicros() + durationMs * 1_000;
            go.countDown();

            // The stall poller: bounded by the run's end plus the finishing time.
            long pollDeadline = began + TimeUnit.MILLISECONDS.toNanos(durationMs) + FINISH_TIMEOUT.toNanos();
            String stallKey = run + ":stall:" + index;
            while (System.nanoTime() - pollDeadline < 0 && running.stream().anyMatch(Thread::isAlive)) {
                String stall = commands.eval("local v = redis.call('GET', KEYS[1]) "
                        + "if v then redis.call('DEL', KEYS[1]) end return v", ScriptOutputType.VALUE, stallKey);
                if (stall != null) {
                    pendingStall.set(Long.parseLong(stall));
                }
                log.flush();
                Thread.sleep(50);
            }
            for (Thread thread : running) {
                thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(pollDeadline - System.nanoTime())));
                if (thread.isAlive()) {
                    log.write("END", SoakLog.nowMicros(), acquisitions.get(), "thread", thread.getName(), "still running");
                    log.flush();
                    System.err.println("worker " + index + ": " + thread.getName() + " did not finish");
                    return EXIT_TIMEOUT;
                }
            }
            if (failure.get() != null) {
                log.flush();
                failure.get().printStackTrace();
                return EXIT_ERROR;
            }
            log.write("END", SoakLog.nowMicros(), acquisitions.get());
            log.flush();
            return EXIT_OK;
        } finally {
            resourceClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    /** One thread's loop: acquire, a short critical section, unlock, until the end. */
    private static final class Loop {
        private final int thread;
        private final String who;
        private final Random random;
        private final RLock lock;
        private final RFencedLock fenced;
        private final FencedResource resource;
        private final SoakLog log;
        private final AtomicLong pendingStall;
        private final AtomicLong acquisitions;

        Loop(int thread, String who, Random random, RLock lock, RFencedLock fenced, FencedResource resource, SoakLog log,
                AtomicLong pendingStall, AtomicLong acquisitions) {
            this.thread = thread;
            this.who = who;
            this.random = random;
            this.lock = lock;
            this.fenced = fenced;
            this.resource = resource;
            this.log = log;
            this.pendingStall = pendingStall;
            this.acquisitions = acquisitions;
        }

        void run(long endMicros) throws InterruptedException {
            Op[] ops = Op.values();
            long seq = 0;
            while (SoakLog.nowMicros() < endMicros) {
                Op op = ops[random.nextInt(ops.length)];
                long attempt = SoakLog.nowMicros();
                Long token = null;
                boolean acquired;
                try {
                    switch (op) {
                        case TRY_FIXED -> acquired = lock.tryLock(WAIT_MS, LEASE_MS, TimeUnit.MILLISECONDS);
                        case TRY_WATCHDOG -> acquired = lock.tryLock(WAIT_MS, TimeUnit.MILLISECONDS);
                        case LOCK_WATCHDOG -> {
                            lock.lock();
                            acquired = true;
                        }
                        case LOCK_FIXED -> {
                            lock.lock(LEASE_MS, TimeUnit.MILLISECONDS);
                            acquired = true;
                        }
                        case FENCED_TRY_FIXED -> {
                            token = fenced.tryLockAndGetToken(WAIT_MS, LEASE_MS, TimeUnit.MILLISECONDS);
                            acquired = token != null;
                        }
                        case FENCED_TRY_WATCHDOG -> {
                            token = fenced.tryLockAndGetToken(WAIT_MS, -1, TimeUnit.MILLISECONDS);
                            acquired = token != null;
                        }
                        case FENCED_LOCK -> {
                            token = fenced.lockAndGetToken();
                            acquired = true;
                        }
                        default -> throw new IllegalStateException("unknown op " + op);
                    }
                } catch (RuntimeException e) {
                    log.write("FAIL", thread, op, op.waitMs(), op.leaseMs(), attempt, SoakLog.nowMicros(),
                            kind(e), String.valueOf(e.getMessage()));
                    checkNotHeld("FAIL");
                    Thread.sleep(5);
                    continue;
                }
                if (!acquired) {
                    log.write("TIMEOUT", thread, op, op.waitMs(), op.leaseMs(), attempt, SoakLog.nowMicros());
                    checkNotHeld("TIMEOUT");
                    continue;
                }
                long acquiredAt = SoakLog.nowMicros();
                seq++;
                acquisitions.incrementAndGet();
                log.write("ACQ", thread, seq, op, op.waitMs(), op.leaseMs(), attempt, acquiredAt,
                        token == null ? "-" : token);
                criticalSection(op, seq, token);
                long releaseStart = SoakLog.nowMicros();
                String result;
                try {
                    lock.unlock();
                    result = "OK";
                } catch (IllegalMonitorStateException e) {
                    result = "NOT_HELD";
                } catch (RuntimeException e) {
                    result = kind(e);
                }
                log.write("REL", thread, seq, releaseStart, SoakLog.nowMicros(), result);
                if (result.equals("OK")) {
                    checkNotHeld("UNLOCK");
                }
                Thread.sleep(random.nextInt(3));
            }
        }

        /**
         * Asks Redis whether this thread still holds the lock although it unlocked its only hold,
         * or was told it did not get it: a stray hold, logged as such. Left in place, as a user's
         * thread would leave it. An error of the question itself is not judged.
         */
        private void checkNotHeld(String after) {
            try {
                if (lock.isHeldByCurrentThread()) {
                    log.write("STRAY", thread, after, SoakLog.nowMicros());
                }
            } catch (RuntimeException e) {
                // Redis did not answer: nothing to judge.
            }
        }

        private void criticalSection(Op op, long seq, Long token) throws InterruptedException {
            if (op.leaseMs() > 0) {
                long stall = pendingStall.getAndSet(0);
                if (stall > 0) {
                    log.write("STALL", thread, seq, SoakLog.nowMicros(), stall);
                    Thread.sleep(stall);
                }
            }
            if (token != null) {
                long start = SoakLog.nowMicros();
                FencedResource.Write write = resource.write(token, who + "#" + seq);
                log.write("WRITE", thread, seq, start, SoakLog.nowMicros(), token, write.accepted() ? "A" : "R",
                        write.previousMax());
            }
            Thread.sleep(1 + random.nextInt(3));
        }
    }

    /** An exception's kind: its class, and its cause's when it has one. */
    static String kind(Throwable e) {
        return e.getCause() == null ? e.getClass().getSimpleName()
                : e.getClass().getSimpleName() + "/" + e.getCause().getClass().getSimpleName();
    }
}
