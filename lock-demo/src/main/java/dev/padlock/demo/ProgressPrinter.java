package dev.padlock.demo;

import java.io.PrintStream;
import java.util.List;

/** Prints one progress line a second while the workers run: acquisitions so far and acq/s. */
final class ProgressPrinter {

    private final List<WorkerProcess> workers;
    private final PrintStream out;
    private final long startNanos;
    /** Owned by the thread calling {@link #tick()}. */
    private long previousTotal;
    private long previousNanos;

    ProgressPrinter(List<WorkerProcess> workers, PrintStream out, long startNanos) {
        this.workers = workers;
        this.out = out;
        this.startNanos = startNanos;
        this.previousNanos = startNanos;
    }

    /** The final line, once every worker is done: no rate over a partial second. */
    void finish() {
        long total = workers.stream().mapToLong(WorkerProcess::acquisitions).sum();
        out.printf("[%3ds] %,10d acquisitions  done%n", Math.round((System.nanoTime() - startNanos) / 1e9), total);
    }

    void tick() {
        long now = System.nanoTime();
        long total = workers.stream().mapToLong(WorkerProcess::acquisitions).sum();
        double seconds = Math.max(1e-9, (now - previousNanos) / 1e9);
        long rate = Math.round((total - previousTotal) / seconds);
        long running = workers.stream().filter(worker -> !worker.reportedDone()).count();
        out.printf("[%3ds] %,10d acquisitions  %,8d acq/s  (%d of %d workers running)%n",
                Math.round((now - startNanos) / 1e9), total, rate, running, workers.size());
        previousTotal = total;
        previousNanos = now;
    }
}
