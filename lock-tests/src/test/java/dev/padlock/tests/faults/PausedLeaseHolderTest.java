package dev.padlock.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.LockLease;
import dev.padlock.RLock;
import dev.padlock.testing.ChildJvm;
import dev.padlock.testing.ProcessPause;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Paused holders (issue 27): a worker JVM ({@link LeaseWorker}) is stopped with SIGSTOP inside its
 * hold and inside its wait, past its lease, and resumed. A lease whose TTL could have ended while
 * its process was stopped never reports {@code safeFor() > 0} again, and a grant sent before the
 * stop, read on waking after its lease ran out, does not make the worker a second holder.
 */
@RedisTest
@Tag("faults")
class PausedLeaseHolderTest {
    /** Generous upper bounds that catch hangs only. */
    private static final Duration HANG = Duration.ofSeconds(120);
    /** Put after the worker's last line. */
    private static final String ENDED = new String("(ended)");

    private Process worker;
    /** Every line the worker printed, in order; read by {@link #next} and shown when a wait fails. */
    private final List<String> printed = new CopyOnWriteArrayList<>();
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private Writer in;
    private LockClient client;
    private String name;

    @BeforeEach
    void name() {
        name = "paused:" + UUID.randomUUID();
    }

    @AfterEach
    void stop() {
        if (worker != null) {
            if (worker.isAlive()) {
                try {
                    ProcessPause.resume(worker);
                } catch (IllegalStateException ended) {
                    // it ended meanwhile
                }
            }
            worker.destroyForcibly();
        }
        if (client != null) {
            client.close();
        }
    }

    private void start(RedisEndpoint redis, String mode, long watchdogMs) {
        worker = ChildJvm.of(LeaseWorker.class).jvmArgs("-Dorg.slf4j.simpleLogger.log.dev.padlock=debug")
                .args(redis.uri(), name, mode, Long.toString(watchdogMs)).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(worker.getInputStream(), StandardCharsets.UTF_8));
        Thread reader = new Thread(() -> {
            try {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    printed.add(line);
                    lines.add(line);
                }
            } catch (IOException e) {
                printed.add("(reading the worker's output failed: " + e + ")");
            }
            lines.add(ENDED);
        }, "worker-output");
        reader.setDaemon(true);
        reader.start();
        in = new OutputStreamWriter(worker.getOutputStream(), StandardCharsets.UTF_8);
    }

    /** The worker's next line that starts with {@code prefix} (its log lines are skipped). */
    private String next(String prefix) throws Exception {
        for (String line = lines.poll(HANG.toSeconds(), TimeUnit.SECONDS); line != null;
                line = lines.poll(HANG.toSeconds(), TimeUnit.SECONDS)) {
            if (line == ENDED) {
                throw new AssertionError("the worker ended before printing " + prefix + "; it printed:\n" + printed());
            }
            if (line.startsWith(prefix)) {
                return line;
            }
        }
        throw new AssertionError("the worker printed no " + prefix + " within " + HANG + "; it printed:\n" + printed());
    }

    /** Whether the worker printed a line that starts with {@code prefix}. */
    private boolean printed(String prefix) {
        return printed.stream().anyMatch(line -> line.startsWith(prefix));
    }

    /** Waits for {@code condition}, up to {@link #HANG}; a timeout shows what the worker printed. */
    private void until(Callable<Boolean> condition) {
        try {
            await().atMost(HANG).until(condition);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(e.getMessage() + "; the worker printed:\n" + printed(), e);
        }
    }

    private String printed() {
        return String.join("\n", printed);
    }

    private void send(String line) throws IOException {
        in.write(line + "\n");
        in.flush();
    }

    @Test
    void aLeaseStoppedPastItsTtlIsNeverSafeAgain(RedisEndpoint redis, RedisAdmin admin) throws Exception {
        start(redis, "hold", 1_500);
        next("HELD");
        send("check");
        assertThat(Long.parseLong(next("SAFE ").substring(5))).as("safe while renewed").isPositive();

        ProcessPause.stop(worker); // every thread of it, not only the signal sent
        // its renewals stop with it: the lock expires on Redis, and another owner takes it
        until(() -> admin.commands().exists(name) == 0);
        client = LockClient.connect(redis.uri());
        LockLease other = client.getLock(name).acquire();
        ProcessPause.resume(worker);

        send("check");
        assertThat(Long.parseLong(next("SAFE ").substring(5))).as("safe for, after the stop").isZero();
        other.release();
        send("quit");
    }

    @Test
    void aGrantReadAfterItsLeaseRanOutDoesNotMakeASecondHolder(RedisEndpoint redis, RedisAdmin admin)
            throws Exception {
        client = LockClient.connect(redis.uri());
        RLock lock = client.getLock(name);
        LockLease holder = lock.acquire();
        start(redis, "wait", 30_000);
        next("WAITING");
        // the worker has its place in the lock's line: the release grants the lock to it
        until(() -> admin.commands().exists("padlock_queue:{" + name + "}") == 1);

        // stopped, every thread of it: a worker thread that ran on after kill returned could read the
        // grant while it was fresh, and be told "held" rightly, before its pause
        ProcessPause.stop(worker);
        holder.release();
        // the grant's 1 s lease runs out while the worker cannot read it; then this test holds
        until(() -> admin.commands().exists(name) == 0);
        LockLease again = lock.acquire();
        ProcessPause.resume(worker);

        // the worker reads the stale grant on waking, finds it gone, and takes a place in line again
        // behind this holder (told "held" on that grant, it would never come back to the line)
        until(() -> admin.commands().exists("padlock_queue:{" + name + "}") == 1
                || printed("ACQUIRED") || printed("TIMEOUT") || !worker.isAlive());
        assertThat(printed("ACQUIRED") || printed("TIMEOUT") || !worker.isAlive())
                .as("the worker came back to the line; it printed:\n%s\nthe lock: %s", printed(),
                        admin.commands().hgetall(name))
                .isFalse();
        long releasedAt = System.currentTimeMillis();
        assertThat(again.isHeld()).isTrue();
        again.release();
        long acquiredAt = Long.parseLong(next("ACQUIRED ").substring(9));
        assertThat(acquiredAt).as("the worker acquired only after this holder released").isGreaterThanOrEqualTo(releasedAt);
    }
}
