package dev.padlock;

import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.RedisTest;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mutual exclusion across JVMs: several worker processes ({@link CounterWorker}), each with
 * several threads, increment a Redis counter non-atomically (GET, then SET value + 1) inside one
 * Padlock lock. Any overlap of two holders loses an increment, so the counter ends exact only
 * when the lock excludes across processes and threads.
 */
@RedisTest
class MultiProcessExclusionTest {

    private static final int PROCESSES = 3;
    private static final int THREADS = 4;
    private static final int ITERATIONS = 50;
    /** Generous bounds that only catch hangs. */
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(60);

    private final List<Process> workers = new ArrayList<>();

    @AfterEach
    void destroyLeftovers() throws InterruptedException {
        for (Process worker : workers) {
            if (worker.isAlive()) {
                worker.destroyForcibly();
                worker.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void workerProcessesNeverOverlap(RedisEndpoint redis, RedisAdmin admin, @TempDir Path logs) throws Exception {
        String run = UUID.randomUUID().toString();
        String lockName = "multiprocess:" + run;
        String counterKey = lockName + ":counter";
        String readyKey = lockName + ":ready";
        String goKey = lockName + ":go";
        admin.commands().set(counterKey, "0");

        String classpath = workerClasspath();
        List<Path> outputs = new ArrayList<>();
        for (int p = 0; p < PROCESSES; p++) {
            Path output = logs.resolve("worker-" + p + ".log");
            outputs.add(output);
            List<String> command = List.of(javaBinary(),
                    "-Xmx128m",
                    "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                    "-cp", classpath,
                    CounterWorker.class.getName(),
                    redis.uri(), lockName, counterKey, readyKey, goKey,
                    String.valueOf(THREADS), String.valueOf(ITERATIONS));
            workers.add(new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile())
                    .start());
        }

        await("all " + PROCESSES + " workers connected")
                .atMost(READY_TIMEOUT)
                .pollInterval(Duration.ofMillis(50))
                .failFast("a worker exited before the go signal", () -> workers.stream().anyMatch(w -> !w.isAlive()))
                .until(() -> String.valueOf(PROCESSES).equals(admin.commands().get(readyKey)));
        long began = System.nanoTime();
        String[] tokens = new String[PROCESSES];
        Arrays.fill(tokens, "go");
        admin.commands().rpush(goKey, tokens);

        long deadline = began + EXIT_TIMEOUT.toNanos();
        for (int p = 0; p < PROCESSES; p++) {
            Process worker = workers.get(p);
            if (!worker.waitFor(Math.max(0, deadline - System.nanoTime()), NANOSECONDS)) {
                fail("worker " + p + " (pid " + worker.pid() + ") did not exit within " + EXIT_TIMEOUT
                        + "\n" + describe(outputs));
            }
        }
        long elapsed = System.nanoTime() - began;
        System.out.print(describe(outputs));
        System.out.printf("%d processes x %d threads x %d iterations in %d ms%n",
                PROCESSES, THREADS, ITERATIONS, NANOSECONDS.toMillis(elapsed));

        for (int p = 0; p < PROCESSES; p++) {
            assertEquals(CounterWorker.EXIT_OK, workers.get(p).exitValue(),
                    "exit code of worker " + p + "\n" + describe(outputs));
        }
        assertEquals(String.valueOf(PROCESSES * THREADS * ITERATIONS), admin.commands().get(counterKey),
                "increments lost: two holders overlapped");
        assertEquals(0, admin.commands().exists(lockName), "the lock is still held");
    }

    /** The same {@code java} this JVM runs. */
    private static String javaBinary() {
        return ProcessHandle.current().info().command()
                .orElseGet(() -> Path.of(System.getProperty("java.home"), "bin", "java").toString());
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
