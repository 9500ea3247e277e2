package dev.padlock.demo;

import java.io.PrintStream;
import java.util.List;

/**
 * The summary printed at the end of the demo, and whether the run passed: the counter exact (equal
 * to the exclusive acquisitions), no torn read, no fencing-token violation.
 */
final class DemoReport {

    private final DemoKind kind;
    private final List<WorkerProcess> workers;
    private final WorkerTotals totals;
    private final long counter;
    private final double seconds;
    private final CommandReport commands;
    private final int servers;
    private final List<String> lockKeysLeft;

    DemoReport(DemoKind kind, List<WorkerProcess> workers, WorkerTotals totals, long counter, double seconds,
            CommandReport commands, int servers, List<String> lockKeysLeft) {
        this.kind = kind;
        this.workers = workers;
        this.totals = totals;
        this.counter = counter;
        this.seconds = seconds;
        this.commands = commands;
        this.servers = servers;
        this.lockKeysLeft = List.copyOf(lockKeysLeft);
    }

    /** Every acquisition, as last counted by the workers (read locks included). */
    long acquisitions() {
        return workers.stream().mapToLong(WorkerProcess::acquisitions).sum();
    }

    /** The increments the counter should show: every acquisition, or the write acquisitions for rw. */
    private long expectedCounter() {
        return kind == DemoKind.RW ? totals.writes() : acquisitions();
    }

    boolean exact() {
        return counter == expectedCounter();
    }

    /** Exact, and no check inside the lock failed. */
    boolean passed() {
        return exact() && totals.tornReads() == 0 && totals.tokenViolations() == 0;
    }

    void print(PrintStream out) {
        long acquisitions = acquisitions();
        out.println();
        out.println("Summary (--kind " + kind.argument() + ": " + kind.description() + ")");
        out.printf("  acquisitions      %,d in %.1f s (%,d acq/s)%n", acquisitions, seconds,
                Math.round(acquisitions / Math.max(seconds, 1e-9)));
        if (kind == DemoKind.RW) {
            out.printf("  reads / writes    %,d reads (%,d torn: the counter changed between two reads), %,d writes%n",
                    acquisitions - totals.writes(), totals.tornReads(), totals.writes());
        }
        long expected = expectedCounter();
        String of = kind == DemoKind.RW ? "writes" : "acquisitions";
        if (exact()) {
            out.printf("  counter           %,d  EXACT%s%n", counter, kind == DemoKind.RW ? " (= writes)" : "");
        } else {
            out.printf("  counter           %,d  MISMATCH: %,d %s, %,d %s%n", counter, expected, of,
                    Math.abs(expected - counter), counter < expected ? "lost updates" : "extra updates");
        }
        if (kind == DemoKind.FENCED) {
            out.printf("  fencing tokens    %,d checked, %,d violations (a token not larger than the last one written)%n",
                    totals.writes(), totals.tokenViolations());
        }
        long expired = totals.leasesExpired();
        if (expired > 0) {
            out.printf("  leases expired    %,d times before the holder unlocked (another could take the lock)%n", expired);
        }
        Percentiles latency = new Percentiles(allLatencies());
        if (latency.count() == 0) {
            out.println("  wake-up latency   n/a (no acquisition had to wait)");
        } else {
            out.printf("  wake-up latency   p50 %s, p99 %s  (%s -> next waiter's acquire; %,d of %,d acquisitions waited)%n",
                    Percentiles.formatMicros(latency.percentile(50)), Percentiles.formatMicros(latency.percentile(99)),
                    kind == DemoKind.RW ? "write unlock" : "unlock", latency.count(), acquisitions);
        }
        out.println("  Redis commands per acquisition (INFO commandstats" + (servers > 1 ? " summed over " + servers
                + " servers" : "") + "; it counts redis.call() inside scripts too)");
        out.println("    lock engine     " + commands.engineLine());
        out.println("    demo's own      " + commands.bookkeepingLine());
        out.println("  lock keys left    " + (lockKeysLeft.isEmpty() ? "none" : "YES: " + String.join(", ", lockKeysLeft)));
    }

    private long[] allLatencies() {
        LongSamples all = new LongSamples();
        workers.forEach(worker -> all.addAll(worker.latencies()));
        return all.toArray();
    }
}
