package dev.padlock.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@link Load} of {@link LoadWorker} JVMs, launched with this JVM's {@code java} and class
 * path. Each worker's stdout lines are read by a thread of its own into a queue; its stderr is
 * passed through. Commands go to every worker before any answer is read, so the workers start
 * and stop together.
 */
final class ProcessLoad implements Load {

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(15);

    private final List<Worker> workers = new ArrayList<>();

    /**
     * Launches {@code processes} workers of {@code threads} threads on {@code lockName} and waits
     * until all are ready (paused).
     */
    ProcessLoad(LockLibrary library, RedisTarget target, String lockName, int processes, int threads,
            long leaseMillis) {
        try {
            for (int i = 0; i < processes; i++) {
                workers.add(Worker.launch(i, library, target, lockName, threads, leaseMillis));
            }
            for (Worker worker : workers) {
                worker.expect("READY", READY_TIMEOUT);
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    @Override
    public void resume() {
        workers.forEach(worker -> worker.send("RESUME"));
    }

    @Override
    public long[] pause() {
        workers.forEach(worker -> worker.send("PAUSE"));
        List<Long> counts = new ArrayList<>();
        for (Worker worker : workers) {
            String answer = worker.expect("PAUSED", ANSWER_TIMEOUT);
            Arrays.stream(answer.substring("PAUSED".length()).trim().split(" "))
                    .map(Long::parseLong).forEach(counts::add);
        }
        return counts.stream().mapToLong(Long::longValue).toArray();
    }

    @Override
    public void close() {
        RuntimeException failure = null;
        for (Worker worker : workers) {
            try {
                worker.stop();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** One worker process and the queue of its stdout lines. */
    private static final class Worker {

        private static final String END = "\u0000end";

        private final int index;
        private final Process process;
        private final Writer commands;
        private final BlockingQueue<String> lines = new ArrayBlockingQueue<>(1024);

        private Worker(int index, Process process) {
            this.index = index;
            this.process = process;
            this.commands = new java.io.OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        }

        static Worker launch(int index, LockLibrary library, RedisTarget target, String lockName, int threads,
                long leaseMillis) {
            Path java = Path.of(System.getProperty("java.home"), "bin", "java");
            List<String> command = List.of(java.toString(),
                    "-cp", System.getProperty("java.class.path"),
                    "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                    LoadWorker.class.getName(),
                    library.name(), target.argument(), lockName, String.valueOf(threads), String.valueOf(leaseMillis));
            try {
                Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
                Worker worker = new Worker(index, process);
                Thread reader = new Thread(worker::readLines, "bench-worker-" + index + "-reader");
                reader.setDaemon(true);
                reader.start();
                return worker;
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot start worker " + index, e);
            }
        }

        void send(String command) {
            try {
                commands.write(command + "\n");
                commands.flush();
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot send " + command + " to worker " + index, e);
            }
        }

        /** The next line, which must start with {@code prefix}. */
        String expect(String prefix, Duration timeout) {
            String line;
            try {
                line = lines.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while waiting for worker " + index, e);
            }
            if (line == null) {
                throw new IllegalStateException("Worker " + index + " did not answer " + prefix + " within " + timeout);
            }
            if (!line.startsWith(prefix)) {
                throw new IllegalStateException("Worker " + index + " answered '"
                        + (END.equals(line) ? "(its output ended)" : line) + "', expected " + prefix);
            }
            return line;
        }

        /** Asks the worker to stop; destroys it when it does not exit in time. */
        void stop() {
            try {
                if (process.isAlive()) {
                    send("STOP");
                    expect("STOPPED", EXIT_TIMEOUT);
                }
                if (!process.waitFor(EXIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException("Worker " + index + " did not exit within " + EXIT_TIMEOUT);
                }
                if (process.exitValue() != 0) {
                    throw new IllegalStateException("Worker " + index + " exited with " + process.exitValue());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while stopping worker " + index, e);
            } catch (UncheckedIOException e) {
                throw new IllegalStateException("Worker " + index + " is gone: " + e.getMessage(), e);
            } finally {
                destroy();
            }
        }

        private void destroy() {
            if (!process.isAlive()) {
                return;
            }
            process.destroy();
            try {
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }

        private void readLines() {
            try (BufferedReader in = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    lines.offer(line);
                }
            } catch (IOException e) {
                lines.offer("FAILED unreadable output: " + e);
            } finally {
                lines.offer(END);
            }
        }
    }
}
