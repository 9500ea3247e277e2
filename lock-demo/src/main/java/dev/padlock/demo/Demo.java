package dev.padlock.demo;

import dev.padlock.testing.CommandStats;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The demo's parent process: provisions Redis (or uses {@code --redis}; three servers for
 * {@code --kind red}), launches the worker JVMs, starts them together, prints progress once a
 * second, and ends with the summary. Exits 0 when the counter is exact, no check inside the lock
 * failed (torn reads, fencing tokens) and every worker finished cleanly; 1 otherwise, 2 on bad
 * usage.
 */
public final class Demo {

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    /** Beyond the run time: a waiter may need a whole watchdog lease if a holder died. */
    private static final Duration FINISH_GRACE = Duration.ofSeconds(45);
    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(10);

    private final DemoOptions options;
    private final PrintStream out;

    private Demo(DemoOptions options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    public static void main(String[] args) throws InterruptedException {
        System.exit(run(args));
    }

    /**
     * Runs the demo as {@code ./padlock demo} with {@code args}; returns the
     * exit status (0: the counter is exact and every check passed, 2: bad arguments).
     */
    public static int run(String[] args) throws InterruptedException {
        if (Arrays.asList(args).contains("--help") || Arrays.asList(args).contains("-h")) {
            System.out.println(DemoOptions.USAGE);
            return 0;
        }
        DemoOptions options;
        try {
            options = DemoOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.println(DemoOptions.USAGE);
            return 2;
        }
        return new Demo(options, System.out).run();
    }

    private int run() throws InterruptedException {
        // the banner first: provisioning starts Redis, and nothing it logs comes before this line
        out.printf("Padlock demo, --kind %s (%s): %d processes x %d threads on one lock for %d s; lease: %s%n",
                options.kind().argument(), options.kind().description(), options.processes(), options.threads(),
                options.seconds(), options.leaseDescription());
        out.flush();
        try (DemoServers servers = DemoServers.provision(options)) {
            out.println(servers.describe());
            if (!servers.allControllable()) {
                out.println("(a server others may use: their commands count in the per-acquisition figures too)");
            }
            servers.deleteBookkeeping();
            try {
                return runWorkers(servers);
            } finally {
                servers.deleteBookkeeping();
            }
        }
    }

    private int runWorkers(DemoServers servers) throws InterruptedException {
        List<WorkerProcess> workers = new ArrayList<>();
        try {
            for (int i = 0; i < options.processes(); i++) {
                workers.add(WorkerProcess.launch(i, servers.uris(), options));
            }
            if (!allReady(workers)) {
                printFailures(workers);
                return 1;
            }
            CommandStats before = servers.commandStats();
            long start = System.nanoTime();
            workers.forEach(WorkerProcess::go);
            boolean finished = showProgressUntilDone(workers, start);
            double seconds = (System.nanoTime() - start) / 1e9;
            boolean cleanExits = awaitExits(workers) && finished;
            CommandStats after = servers.commandStats();

            String counter = servers.first().commands().get(DemoKeys.COUNTER);
            WorkerTotals totals = total(workers);
            DemoReport report = new DemoReport(options.kind(), workers, totals,
                    counter == null ? 0 : Long.parseLong(counter), seconds,
                    CommandReport.of(before, after, totals.gets(), totals.sets(), totals.acquisitions()),
                    servers.size(), servers.lockKeysLeft());
            report.print(out);
            printFailures(workers);
            return report.passed() && cleanExits ? 0 : 1;
        } finally {
            workers.forEach(WorkerProcess::destroy);
        }
    }

    private boolean allReady(List<WorkerProcess> workers) throws InterruptedException {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        for (WorkerProcess worker : workers) {
            Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
            if (!worker.awaitReady(left)) {
                out.printf("Worker %d did not get ready within %s%n", worker.index(), READY_TIMEOUT);
                return false;
            }
        }
        return true;
    }

    /** Prints a line a second until every worker is done; false when the grace ran out. */
    private boolean showProgressUntilDone(List<WorkerProcess> workers, long start) throws InterruptedException {
        ProgressPrinter progress = new ProgressPrinter(workers, out, start);
        long deadline = start + TimeUnit.SECONDS.toNanos(options.seconds()) + FINISH_GRACE.toNanos();
        long nextTick = start + TimeUnit.SECONDS.toNanos(1);
        while (true) {
            boolean allDone = true;
            for (WorkerProcess worker : workers) {
                Duration untilTick = Duration.ofNanos(Math.max(0, nextTick - System.nanoTime()));
                allDone &= worker.awaitDone(untilTick);
            }
            if (allDone) {
                progress.finish();
                return true;
            }
            if (System.nanoTime() - deadline > 0) {
                out.printf("Workers still running %s after the deadline; stopping them%n", FINISH_GRACE);
                return false;
            }
            progress.tick();
            nextTick += TimeUnit.SECONDS.toNanos(1);
        }
    }

    private boolean awaitExits(List<WorkerProcess> workers) throws InterruptedException {
        boolean clean = true;
        for (WorkerProcess worker : workers) {
            int status = worker.awaitExit(EXIT_TIMEOUT);
            if (status != 0 || !worker.reportedDone()) {
                out.printf("Worker %d exited with %d%s%n", worker.index(), status,
                        worker.reportedDone() ? "" : " without reporting its totals");
                clean = false;
            }
        }
        return clean;
    }

    private void printFailures(List<WorkerProcess> workers) {
        for (WorkerProcess worker : workers) {
            worker.failures().forEach(failure -> out.printf("Worker %d: %s%n", worker.index(), failure));
        }
    }

    private static WorkerTotals total(List<WorkerProcess> workers) {
        return workers.stream().map(WorkerProcess::totals).reduce(WorkerTotals.NONE, WorkerTotals::plus);
    }
}
