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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A worker JVM of the fault-schedule soak ({@link SoakRun}): {@code threads} threads loop on ONE
 * lock name, through an {@link RLock} and an {@link RFencedLock} of that name, with watchdog and
 * fixed leases, until the run's time is up ({@link SoakLoop}: each acquisition's completion is
 * stamped in its future's callback). A fenced holder writes its token to the fenced resource
 * ({@link FencedResource}, on a second Redis that is never faulted). Every event goes to the
 * worker's {@link SoakLog}.
 *
 * <p>Control goes through the resource's Redis, which stays up: the worker {@code INCR}s
 * {@code <run>:ready}, waits (bounded) in {@code BLPOP <run>:go}, and a poller thread takes the
 * controller's arming when it is set: {@code <run>:stall:<index>} (milliseconds), and the next
 * thread of this worker that acquires with a fixed lease sleeps that long inside its critical
 * section (a holder paused past its lease); {@link SoakRun#holdKey}, and the next thread of this
 * worker that acquires with a watchdog lease says so on {@link SoakRun#holdingKey} and keeps the
 * lock until the controller lets it go ({@link SoakRun#letGoKey}, at most {@link #HOLD_BOUND});
 * {@link SoakRun#waitStopKey}, and the poller pushes {@code "<thread> <attemptUs>"} of the
 * thread whose acquisition in progress began last (at its next poll with one) to
 * {@link SoakRun#waitingKey}, so that the controller can stop this JVM while that thread waits.
 * The seed and the worker and thread indexes drive every choice.
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
    /** The longest a thread keeps a hold the controller armed, unless it is let go sooner. */
    static final Duration HOLD_BOUND = Duration.ofSeconds(5);
    /** How long after the run's end the threads may take to finish their last iteration. */
    private static final Duration FINISH_TIMEOUT = Duration.ofSeconds(30);

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
                StatefulRedisConnection<String, String> holdConnection = resourceClient.connect();
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
            boolean pendingWaitStop = false; // the poller's own
            AtomicBoolean pendingHold = new AtomicBoolean();
            AtomicLongArray waitingSince = new AtomicLongArray(threads);
            AtomicLong acquisitions = new AtomicLong();
            RedisCommands<String, String> commands = control.sync();
            SoakLoop.Control hold = (thread, seq) -> {
                commands.rpush(SoakRun.holdingKey(run, index), thread + " " + seq);
                // on a connection of its own: a blocking pop holds up every command behind it
                KeyValue<String, String> letGo = holdConnection.sync().blpop(HOLD_BOUND.toSeconds(),
                        SoakRun.letGoKey(run, index));
                return letGo != null && letGo.hasValue();
            };
            SoakLoop.Shared shared = new SoakLoop.Shared(pendingStall, pendingHold, hold, waitingSince, acquisitions,
                    commandTimeoutMs);
            CountDownLatch go = new CountDownLatch(1);
            long[] endMicros = new long[1];
            AtomicReference<Throwable> failure = new AtomicReference<>();
            for (int t = 0; t < threads; t++) {
                Random random = new Random(seed * 1_000_003L + index * 1_009L + t);
                SoakLoop loop = new SoakLoop(t, "w" + index + "t" + t, random, lock, fenced, resource, log, shared);
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

            commands.incr(run + ":ready");
            KeyValue<String, String> signal = commands.blpop(GO_TIMEOUT.toSeconds(), run + ":go");
            if (signal == null || !signal.hasValue()) {
                System.err.println("worker " + index + ": no go signal within " + GO_TIMEOUT);
                return EXIT_NO_GO;
            }
            long began = System.nanoTime();
            endMicros[0] = SoakLog.nowMicros() + durationMs * 1_000;
            go.countDown();

            // The poller of the controller's arming: bounded by the run's end plus the finishing time.
            long pollDeadline = began + TimeUnit.MILLISECONDS.toNanos(durationMs) + FINISH_TIMEOUT.toNanos();
            String stallKey = run + ":stall:" + index;
            String waitStopKey = SoakRun.waitStopKey(run, index);
            String holdKey = SoakRun.holdKey(run, index);
            while (System.nanoTime() - pollDeadline < 0 && running.stream().anyMatch(Thread::isAlive)) {
                String stall = take(commands, stallKey);
                if (stall != null) {
                    pendingStall.set(Long.parseLong(stall));
                }
                if (take(commands, holdKey) != null) {
                    pendingHold.set(true);
                }
                pendingWaitStop |= take(commands, waitStopKey) != null;
                long[] waiter = pendingWaitStop ? latestWait(waitingSince) : null;
                if (waiter != null) {
                    commands.rpush(SoakRun.waitingKey(run, index), waiter[0] + " " + waiter[1]);
                    log.write("WAITSTOP", waiter[0], waiter[1], SoakLog.nowMicros());
                    pendingWaitStop = false;
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

    /**
     * The thread whose acquisition in progress began last, as {@code {thread, attemptUs}}; null
     * when none is in progress.
     */
    private static long[] latestWait(AtomicLongArray waitingSince) {
        long[] latest = null;
        for (int t = 0; t < waitingSince.length(); t++) {
            long since = waitingSince.get(t);
            if (since != 0 && (latest == null || since > latest[1])) {
                latest = new long[] {t, since};
            }
        }
        return latest;
    }

    /** Gets and deletes {@code key}: the controller's arming, taken once. */
    private static String take(RedisCommands<String, String> commands, String key) {
        return commands.eval("local v = redis.call('GET', KEYS[1]) if v then redis.call('DEL', KEYS[1]) end return v",
                ScriptOutputType.VALUE, key);
    }

    /** An exception's kind: its class, and its cause's when it has one. */
    static String kind(Throwable e) {
        return e.getCause() == null ? e.getClass().getSimpleName()
                : e.getClass().getSimpleName() + "/" + e.getCause().getClass().getSimpleName();
    }
}
