package dev.padlock.demo;

import java.io.PrintStream;
import java.util.List;

/** The summary printed at the end of the demo, and whether the counter came out exact. */
final class DemoReport {

    private final List<WorkerProcess> workers;
    private final long counter;
    private final double seconds;
    private final CommandReport commands;
    private final boolean lockKeyLeft;

    DemoReport(List<WorkerProcess> workers, long counter, double seconds, CommandReport commands,
            boolean lockKeyLeft) {
        this.workers = workers;
        this.counter = counter;
        this.seconds = seconds;
        this.commands = commands;
        this.lockKeyLeft = lockKeyLeft;
    }

    long acquisitions() {
        return workers.stream().mapToLong(WorkerProcess::acquisitions).sum();
    }

    boolean exact() {
        return counter == acquisitions();
    }

    void print(PrintStream out) {
        long acquisitions = acquisitions();
        out.println();
        out.println("Summary");
        out.printf("  acquisitions      %,d in %.1f s (%,d acq/s)%n", acquisitions, seconds,
                Math.round(acquisitions / Math.max(seconds, 1e-9)));
        if (exact()) {
            out.printf("  counter           %,d  EXACT%n", counter);
        } else {
            out.printf("  counter           %,d  MISMATCH: %,d acquisitions, %,d %s%n", counter, acquisitions,
                    Math.abs(acquisitions - counter), counter < acquisitions ? "lost updates" : "extra updates");
        }
        long expired = workers.stream().mapToLong(WorkerProcess::leasesExpired).sum();
        if (expired > 0) {
            out.printf("  leases expired    %,d times before the holder unlocked (another could take the lock)%n", expired);
        }
        Percentiles latency = new Percentiles(allLatencies());
        if (latency.count() == 0) {
            out.println("  wake-up latency   n/a (no acquisition had to wait)");
        } else {
            out.printf("  wake-up latency   p50 %s, p99 %s  (unlock -> next waiter's acquire; %,d of %,d acquisitions waited)%n",
                    Percentiles.formatMicros(latency.percentile(50)), Percentiles.formatMicros(latency.percentile(99)),
                    latency.count(), acquisitions);
        }
        out.println("  Redis commands per acquisition (INFO commandstats; it counts redis.call() inside scripts too)");
        out.println("    lock engine     " + commands.engineLine());
        out.println("    demo's own      " + commands.bookkeepingLine());
        out.println("  lock key left    " + (lockKeyLeft ? " YES: the lock is still held" : " none"));
    }

    private long[] allLatencies() {
        LongSamples all = new LongSamples();
        workers.forEach(worker -> all.addAll(worker.latencies()));
        return all.toArray();
    }
}
