package dev.padlock.bench;

import dev.padlock.testing.ChildJvm;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One worker JVM, launched with this JVM's {@code java} and class path, that takes commands as
 * lines on its stdin and answers with lines on its stdout. A daemon thread reads its stdout
 * into a queue; its stderr is passed through. Every wait is bounded; {@link #stop()} asks it to
 * exit ({@code STOP}, answered by {@code STOPPED}) and destroys it when it does not.
 */
final class WorkerProcess {

    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(15);
    private static final String END = "\u0000end";

    private final String name;
    private final Process process;
    private final Writer commands;
    private final BlockingQueue<String> lines = new ArrayBlockingQueue<>(1024);

    private WorkerProcess(String name, Process process) {
        this.name = name;
        this.process = process;
        this.commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    }

    /** Starts {@code main} with {@code args} in a new JVM; {@code name} is used in messages. */
    static WorkerProcess launch(String name, Class<?> main, List<String> args) {
        ProcessBuilder builder = ChildJvm.of(main).jvmArgs("-Xmx512m").args(args).processBuilder();
        try {
            Process process = builder.redirectError(ProcessBuilder.Redirect.INHERIT).start();
            WorkerProcess worker = new WorkerProcess(name, process);
            Thread reader = new Thread(worker::readLines, "bench-" + name.replace(' ', '-') + "-reader");
            reader.setDaemon(true);
            reader.start();
            return worker;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start " + name, e);
        }
    }

    void send(String command) {
        try {
            commands.write(command + "\n");
            commands.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot send " + command + " to " + name, e);
        }
    }

    /** The next line, which must start with {@code prefix}. */
    String expect(String prefix, Duration timeout) {
        String line;
        try {
            line = lines.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for " + name, e);
        }
        if (line == null) {
            throw new IllegalStateException(name + " did not answer " + prefix + " within " + timeout);
        }
        if (!line.startsWith(prefix)) {
            throw new IllegalStateException(name + " answered '"
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
                throw new IllegalStateException(name + " did not exit within " + EXIT_TIMEOUT);
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException(name + " exited with " + process.exitValue());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while stopping " + name, e);
        } catch (UncheckedIOException e) {
            throw new IllegalStateException(name + " is gone: " + e.getMessage(), e);
        } finally {
            destroy();
        }
    }

    /** Stops every worker of {@code workers} ({@link #stop()}); throws the first failure, the others suppressed. */
    static void stopAll(List<WorkerProcess> workers) {
        RuntimeException failure = null;
        for (WorkerProcess worker : workers) {
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
