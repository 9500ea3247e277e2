package dev.padlock.tests.support;

import dev.padlock.testing.ChildJvm;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Runs {@link CounterWorker} JVMs against one topology and checks that their non-atomic counter
 * came out exact: the multi-process exclusion check, for a single server, Sentinel or Cluster.
 * Closing it destroys any worker still alive.
 */
public final class CounterWorkers implements AutoCloseable {
    /**
     * Generous bounds that only catch hangs: three JVMs starting on a loaded 2-core machine took
     * over 30 s to connect (CI, two legs and two builds beside them).
     */
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(120);
    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(180);

    private final List<Process> workers = new ArrayList<>();

    /**
     * Starts {@code processes} workers of {@code threads} threads doing {@code iterations}
     * increments each under one lock, and checks the counter.
     *
     * @param topology what the workers connect to: {@link CounterWorker}'s first argument
     * @param data a connection to the same topology, for the counter and the start signal
     */
    public void runExactCounter(String topology, RedisClusterCommands<String, String> data, int processes, int threads,
            int iterations, Path logs) throws Exception {
        runExactCounter(topology, data, processes, threads, iterations, logs, "lock");
    }

    /** {@link #runExactCounter(String, RedisClusterCommands, int, int, int, Path)} on a lock of {@code kind}: {@code lock}, {@code fair} or {@code rw} (see {@link CounterWorker}). */
    public void runExactCounter(String topology, RedisClusterCommands<String, String> data, int processes, int threads,
            int iterations, Path logs, String kind) throws Exception {
        String run = UUID.randomUUID().toString();
        String lockName = "multiprocess:" + run;
        String counterKey = lockName + ":counter";
        String readyKey = lockName + ":ready";
        String goKey = lockName + ":go";
        data.set(counterKey, "0");

        String classpath = workerClasspath();
        List<Path> outputs = new ArrayList<>();
        for (int p = 0; p < processes; p++) {
            Path output = logs.resolve("worker-" + p + ".log");
            outputs.add(output);
            workers.add(ChildJvm.of(CounterWorker.class).classPath(classpath)
                    .args(topology, lockName, counterKey, readyKey, goKey,
                            String.valueOf(threads), String.valueOf(iterations), kind)
                    .processBuilder()
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile())
                    .start());
        }

        try {
            await("all " + processes + " workers connected")
                    .atMost(READY_TIMEOUT)
                    .pollInterval(Duration.ofMillis(50))
                    .failFast("a worker exited before the go signal", () -> workers.stream().anyMatch(w -> !w.isAlive()))
                    .until(() -> String.valueOf(processes).equals(data.get(readyKey)));
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(e.getMessage() + "\n" + describe(outputs), e);
        }
        long began = System.nanoTime();
        String[] tokens = new String[processes];
        Arrays.fill(tokens, "go");
        data.rpush(goKey, tokens);

        long deadline = began + EXIT_TIMEOUT.toNanos();
        for (int p = 0; p < processes; p++) {
            Process worker = workers.get(p);
            if (!worker.waitFor(Math.max(0, deadline - System.nanoTime()), NANOSECONDS)) {
                fail("worker " + p + " (pid " + worker.pid() + ") did not exit within " + EXIT_TIMEOUT
                        + "\n" + describe(outputs));
            }
        }
        long elapsed = System.nanoTime() - began;
        System.out.print(describe(outputs));
        System.out.printf("%d processes x %d threads x %d iterations in %d ms%n",
                processes, threads, iterations, NANOSECONDS.toMillis(elapsed));

        for (int p = 0; p < processes; p++) {
            assertEquals(CounterWorker.EXIT_OK, workers.get(p).exitValue(),
                    "exit code of worker " + p + "\n" + describe(outputs));
        }
        assertEquals(String.valueOf(processes * threads * iterations), data.get(counterKey),
                "increments lost: two holders overlapped");
        assertEquals(0, data.exists(lockName), "the lock is still held");
    }

    @Override
    public void close() {
        for (Process worker : workers) {
            if (worker.isAlive()) {
                worker.destroyForcibly();
                try {
                    worker.waitFor(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }


    /**
     * Surefire's test classpath, as {@code java.class.path} gives it; checked to hold the test
     * classes, since a manifest-only jar would hide them.
     */
    private static String workerClasspath() throws URISyntaxException {
        String classpath = System.getProperty("java.class.path");
        Path testClasses = Path.of(CounterWorker.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        boolean visible = Arrays.stream(classpath.split(File.pathSeparator))
                .map(entry -> Path.of(entry).toAbsolutePath().normalize())
                .anyMatch(testClasses.toAbsolutePath().normalize()::equals);
        assertTrue(visible, () -> "java.class.path does not list " + testClasses + " (a manifest-only jar?): "
                + classpath);
        return classpath;
    }

    private static String describe(List<Path> outputs) {
        StringBuilder text = new StringBuilder();
        for (int p = 0; p < outputs.size(); p++) {
            text.append("--- worker ").append(p).append(" output ---\n");
            try {
                text.append(Files.exists(outputs.get(p))
                        ? Files.readString(outputs.get(p), StandardCharsets.UTF_8) : "(none)\n");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return text.toString();
    }
}
