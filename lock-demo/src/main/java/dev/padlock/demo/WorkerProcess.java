package dev.padlock.demo;

import dev.padlock.testing.ChildJvm;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One worker JVM as the parent sees it: launched with the parent's own {@code java} and class
 * path, its stdout read line by line on a thread of its own into the state below, its stderr
 * passed through.
 *
 * <p>The reader thread writes the state; other threads read it. Counters are volatile;
 * {@link #latencies()} and {@link #totals()} are read after {@link #awaitDone}.
 */
final class WorkerProcess {

    private final int index;
    private final Process process;
    private final CountDownLatch ready = new CountDownLatch(1);
    private final CountDownLatch done = new CountDownLatch(1);
    private final LongSamples latencies = new LongSamples();
    private final List<String> failures = new ArrayList<>();

    private volatile long acquisitions;
    private volatile WorkerTotals totals = WorkerTotals.NONE;
    private volatile boolean reportedDone;

    private WorkerProcess(int index, Process process) {
        this.index = index;
        this.process = process;
    }

    /** Starts worker number {@code index} on {@code redisUris} (the counter is on the first). */
    static WorkerProcess launch(int index, List<String> redisUris, DemoOptions options) {
        ProcessBuilder builder = ChildJvm.of(Worker.class).jvmArgs("-Xmx256m")
                .args(options.kind().argument(),
                        String.join(",", redisUris),
                        String.valueOf(options.threads()),
                        String.valueOf(options.seconds()),
                        String.valueOf(options.leaseMillis()),
                        String.valueOf(index))
                .processBuilder();
        try {
            Process process = builder.redirectError(ProcessBuilder.Redirect.INHERIT).start();
            WorkerProcess worker = new WorkerProcess(index, process);
            Thread reader = new Thread(worker::readMessages, "demo-worker-" + index + "-reader");
            reader.setDaemon(true);
            reader.start();
            return worker;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start worker " + index, e);
        }
    }

    private void readMessages() {
        try (BufferedReader in = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                handle(WorkerMessage.parse(line));
            }
        } catch (IOException | RuntimeException e) {
            addFailure("unreadable output: " + e);
        } finally {
            ready.countDown();
            done.countDown();
        }
    }

    private void handle(WorkerMessage message) {
        switch (message.type()) {
            case READY:
                ready.countDown();
                break;
            case COUNT:
                acquisitions = message.number(0);
                break;
            case LATENCY:
                synchronized (latencies) {
                    latencies.addAll(message.numbers());
                }
                break;
            case DONE:
                totals = WorkerTotals.fromArray(message.numbers());
                acquisitions = totals.acquisitions();
                reportedDone = true;
                done.countDown();
                break;
            case FAILED:
                addFailure(message.text());
                break;
            default:
                throw new IllegalStateException("Unknown message type " + message.type());
        }
    }

    /** Waits until the worker said READY (or ended); returns whether it is ready. */
    boolean awaitReady(Duration timeout) throws InterruptedException {
        return ready.await(timeout.toMillis(), TimeUnit.MILLISECONDS) && process.isAlive() && failures().isEmpty();
    }

    /** Tells the worker to start its clock. */
    void go() {
        try {
            OutputStream in = process.getOutputStream();
            in.write((WorkerMessage.GO + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        } catch (IOException e) {
            addFailure("cannot send GO: " + e);
        }
    }

    /** Waits until the worker reported DONE or its output ended. */
    boolean awaitDone(Duration timeout) throws InterruptedException {
        return done.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Waits (bounded) for the process to exit; destroys it, forcibly if need be, when it does
     * not. Returns its exit code, or -1 when it had to be destroyed.
     */
    int awaitExit(Duration timeout) throws InterruptedException {
        if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            return process.exitValue();
        }
        addFailure("did not exit within " + timeout + "; destroyed");
        process.destroy();
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(5, TimeUnit.SECONDS);
        }
        return -1;
    }

    /** Destroys the process at once (on the way out after a failure). */
    void destroy() {
        process.destroyForcibly();
    }

    int index() {
        return index;
    }

    long acquisitions() {
        return acquisitions;
    }

    /** The worker's totals once it reported them; {@link WorkerTotals#NONE} before. */
    WorkerTotals totals() {
        return totals;
    }

    boolean reportedDone() {
        return reportedDone;
    }

    long[] latencies() {
        synchronized (latencies) {
            return latencies.toArray();
        }
    }

    List<String> failures() {
        synchronized (failures) {
            return List.copyOf(failures);
        }
    }

    private void addFailure(String failure) {
        synchronized (failures) {
            failures.add(failure);
        }
    }
}
