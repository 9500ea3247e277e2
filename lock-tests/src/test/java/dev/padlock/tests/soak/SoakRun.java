package dev.padlock.tests.soak;

import dev.padlock.tests.support.CounterWorkers;
import dev.padlock.testing.ChildJvm;
import static java.util.concurrent.TimeUnit.NANOSECONDS;

import dev.padlock.testing.ProcessPause;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisServerProcess;
import dev.padlock.testing.RedisServers;
import io.lettuce.core.KeyValue;
import io.lettuce.core.KillArgs;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The controller of the fault-schedule soak: starts two redis-servers (the lock's, which it
 * faults, and the fenced resource's, which it leaves alone), starts the {@link SoakWorker} JVMs
 * with the test class path, applies the {@link FaultSchedule}, waits for the workers to exit by
 * themselves, and hands everything to {@link SoakAnalysis}.
 *
 * <p>Every wait is bounded; a worker still alive at the end is destroyed (by its own
 * {@link Process} handle) and reported. Signals go to the PIDs of processes this JVM started.
 */
final class SoakRun {

    /** The lock's watchdog lease: longer than any server pause (1.6 s) by more than a renewal period. */
    static final long WATCHDOG_MS = 3_000;
    /** The command timeout of the workers' clients. */
    static final long COMMAND_TIMEOUT_MS = 1_000;

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(120);
    /** How long after the run's end every worker must have exited by itself. */
    static final Duration EXIT_BOUND = Duration.ofSeconds(30);

    /** What to run. */
    record Settings(int processes, int threads, long durationMs, long seed, Path directory) {
    }

    /**
     * A fault as applied: the plan, and when it really began and ended (wall-clock µs).
     *
     * @param startUs taken before the fault's first act (for a stop: before {@code kill -STOP} is
     *     sent)
     * @param resumeUs for a stop, taken just before {@code kill -CONT} is sent: every stamp the
     *     stopped worker takes after it resumes is later; {@code endUs} for other faults
     * @param endUs taken after its last act returned
     * @param waiter for a waiter stop, the wait it was aimed at; null otherwise (or when no wait began)
     */
    record Applied(FaultSchedule.Fault fault, long startUs, long resumeUs, long endUs, String note, Waiter waiter) {
        Applied(FaultSchedule.Fault fault, long startUs, long endUs, String note) {
            this(fault, startUs, endUs, endUs, note, null);
        }
    }

    /** A wait a waiter stop was aimed at: the worker's thread index, and when its acquisition began. */
    record Waiter(int thread, long attemptUs) {
    }

    /** A worker process as it ended. */
    record WorkerExit(int index, long pid, Path log, Path output, Integer exitCode, long exitedUs) {
    }

    /** What a run left for the analysis. */
    record Outcome(Settings settings, String lockName, String run, FaultSchedule schedule, List<Applied> applied,
            List<WorkerExit> exits, long goUs, long endUs, Map<String, String> lockServerKeys,
            Map<String, String> resourceServerKeys, List<String> resourceLog) {
    }

    private final Settings settings;

    SoakRun(Settings settings) {
        this.settings = settings;
    }

    Outcome run() throws Exception {
        String run = "soak:" + settings.seed() + ":" + Long.toHexString(System.nanoTime());
        String lockName = run + ":lock";
        FaultSchedule schedule = FaultSchedule.generate(settings.seed(), settings.durationMs(), settings.processes(),
                WATCHDOG_MS, SoakWorker.LEASE_MS);
        List<Process> workers = new ArrayList<>();
        try (RedisServers servers = RedisServers.start(2)) {
            RedisServerProcess lockServer = servers.get(0);
            RedisServerProcess resourceServer = servers.get(1);
            try (RedisAdmin lockAdmin = RedisAdmin.connect(lockServer.uri());
                    RedisAdmin resourceAdmin = RedisAdmin.connect(resourceServer.uri())) {
                List<Path> logs = new ArrayList<>();
                List<Path> outputs = new ArrayList<>();
                String classpath = workerClasspath();
                for (int p = 0; p < settings.processes(); p++) {
                    Path log = settings.directory().resolve("worker-" + p + ".events");
                    Path output = settings.directory().resolve("worker-" + p + ".out");
                    logs.add(log);
                    outputs.add(output);
                    ProcessBuilder worker = ChildJvm.of(SoakWorker.class).jvmArgs("-XX:TieredStopAtLevel=1")
                            .classPath(classpath)
                            .args(lockServer.uri(), resourceServer.uri(), run, lockName, String.valueOf(p),
                            String.valueOf(settings.threads()), String.valueOf(settings.seed()),
                            String.valueOf(settings.durationMs()), String.valueOf(WATCHDOG_MS),
                            String.valueOf(COMMAND_TIMEOUT_MS), log.toString())
                            .processBuilder();
                    workers.add(worker.redirectErrorStream(true)
                            .redirectOutput(output.toFile()).start());
                }
                awaitReady(resourceAdmin, run, workers);
                String[] go = new String[settings.processes()];
                Arrays.fill(go, "go");
                long began = System.nanoTime();
                long goUs = SoakLog.nowMicros();
                resourceAdmin.commands().rpush(run + ":go", go);
                resourceAdmin.commands().del(run + ":ready");

                List<Applied> applied = new ArrayList<>();
                for (FaultSchedule.Fault fault : schedule.faults()) {
                    sleepUntil(began + TimeUnit.MILLISECONDS.toNanos(fault.offsetMs()));
                    applied.add(apply(fault, run, lockServer, lockAdmin, resourceAdmin, workers));
                }
                long endUs = goUs + settings.durationMs() * 1_000;

                List<WorkerExit> exits = new ArrayList<>();
                long exitDeadline = began + TimeUnit.MILLISECONDS.toNanos(settings.durationMs()) + EXIT_BOUND.toNanos();
                for (int p = 0; p < workers.size(); p++) {
                    Process worker = workers.get(p);
                    boolean exited = worker.waitFor(Math.max(0, exitDeadline - System.nanoTime()), NANOSECONDS);
                    long exitedUs = SoakLog.nowMicros();
                    if (!exited) {
                        worker.destroyForcibly();
                        worker.waitFor(10, TimeUnit.SECONDS);
                    }
                    exits.add(new WorkerExit(p, worker.pid(), logs.get(p), outputs.get(p),
                            exited ? worker.exitValue() : null, exitedUs));
                }
                for (int p = 0; p < workers.size(); p++) {
                    // a waiter stop's arming or announcement that came too late: control keys, not the test's
                    resourceAdmin.commands().del(waitStopKey(run, p), waitingKey(run, p), holdKey(run, p),
                            holdingKey(run, p), letGoKey(run, p));
                }
                return new Outcome(settings, lockName, run, schedule, applied, exits, goUs, endUs,
                        keysAndTtls(lockAdmin), keysAndTtls(resourceAdmin),
                        resourceAdmin.commands().lrange(FencedResource.logKey(run), 0, -1));
            }
        } finally {
            for (Process worker : workers) {
                if (worker.isAlive()) {
                    signal(worker, "CONT");
                    worker.destroyForcibly();
                    worker.waitFor(10, TimeUnit.SECONDS);
                }
            }
        }
    }

    private Applied apply(FaultSchedule.Fault fault, String run, RedisServerProcess lockServer, RedisAdmin lockAdmin,
            RedisAdmin resourceAdmin, List<Process> workers) throws InterruptedException {
        long start = SoakLog.nowMicros();
        String note = "";
        switch (fault.kind()) {
            case HOLDER_STALL -> resourceAdmin.commands().set(run + ":stall:" + fault.worker(),
                    String.valueOf(fault.durationMs()));
            case WORKER_STOP -> {
                Process worker = workers.get(fault.worker());
                if (!worker.isAlive()) {
                    return new Applied(fault, start, SoakLog.nowMicros(), "worker already gone");
                }
                return stop(fault, worker, start, "", null, () -> { });
            }
            case WAITER_STOP -> {
                return stopWaiter(fault, run, resourceAdmin, workers.get(fault.worker()));
            }
            case CLIENT_KILL -> {
                Long normal = lockAdmin.commands().clientKill(KillArgs.Builder.typeNormal());
                Long pubSub = lockAdmin.commands().clientKill(KillArgs.Builder.typePubsub());
                note = normal + " normal, " + pubSub + " pub/sub connections";
            }
            case SERVER_PAUSE -> {
                lockServer.pause();
                try {
                    Thread.sleep(fault.durationMs());
                } finally {
                    lockServer.resume();
                }
            }
            case RESTART -> {
                if (fault.leadMs() > 0) {
                    lockServer.pause();
                    Thread.sleep(fault.leadMs());
                }
                lockServer.kill();
                Thread.sleep(fault.durationMs() - fault.leadMs());
                lockServer.restart();
                note = "new pid " + lockServer.pid();
            }
            case SCRIPT_FLUSH -> lockAdmin.scriptFlush();
            default -> throw new IllegalStateException("unknown fault " + fault.kind());
        }
        long end = SoakLog.nowMicros();
        return new Applied(fault, start, end, note);
    }

    /**
     * A stop of a worker while one of its threads waits in line: another worker (the next one) is
     * armed to keep its next watchdog hold until let go, so that the lock stays held; once it says
     * it holds, the target is armed (it names its thread whose acquisition in progress began last,
     * on {@link #waitingKey}); {@code leadMs} after that wait began the target is stopped, and the
     * holder is let go, so that the lock is granted on while the waiter's JVM is stopped. Every
     * step is bounded by {@link FaultSchedule#WAIT_ANNOUNCE_MS}; a step that times out is noted and
     * the rest done without it.
     */
    private Applied stopWaiter(FaultSchedule.Fault fault, String run, RedisAdmin resourceAdmin, Process worker)
            throws InterruptedException {
        long armed = SoakLog.nowMicros();
        if (!worker.isAlive()) {
            return new Applied(fault, armed, SoakLog.nowMicros(), "worker already gone");
        }
        RedisCommands<String, String> commands = resourceAdmin.commands();
        int target = fault.worker();
        int holder = (target + 1) % settings.processes();
        String holderNote = "";
        boolean[] letGo = {holder == target}; // one worker: no one to hold, nothing to let go
        if (holder != target) {
            commands.del(holdingKey(run, holder), letGoKey(run, holder));
            commands.set(holdKey(run, holder), "1");
            String held = pop(commands, holdingKey(run, holder));
            holderNote = held != null ? ", behind w" + holder + "t" + held.split(" ")[0] + "'s hold" : ", no hold";
        }
        try {
            commands.del(waitingKey(run, target));
            commands.set(waitStopKey(run, target), "1");
            String began = pop(commands, waitingKey(run, target));
            if (began == null) {
                return new Applied(fault, armed, SoakLog.nowMicros(), "no wait began within "
                        + FaultSchedule.WAIT_ANNOUNCE_MS + " ms" + holderNote);
            }
            String[] fields = began.split(" ");
            Waiter waiter = new Waiter(Integer.parseInt(fields[0]), Long.parseLong(fields[1]));
            long leftMs = fault.leadMs() - (SoakLog.nowMicros() - waiter.attemptUs()) / 1_000;
            if (leftMs > 0) {
                Thread.sleep(leftMs);
            }
            long start = SoakLog.nowMicros();
            String note = String.format("%d ms into t%d's wait%s", (start - waiter.attemptUs()) / 1_000,
                    waiter.thread(), holderNote);
            return stop(fault, worker, start, note, waiter, () -> {
                if (!letGo[0]) {
                    commands.rpush(letGoKey(run, holder), "go");
                    letGo[0] = true;
                }
            });
        } finally {
            commands.del(waitStopKey(run, target));
            if (!letGo[0]) {
                commands.del(holdKey(run, holder));
                commands.rpush(letGoKey(run, holder), "go"); // a hold that is there, or comes late, ends now
            }
        }
    }

    /** BLPOP of {@code key}, bounded by {@link FaultSchedule#WAIT_ANNOUNCE_MS}: its value, or null. */
    private static String pop(RedisCommands<String, String> commands, String key) {
        KeyValue<String, String> popped = commands.blpop(FaultSchedule.WAIT_ANNOUNCE_MS / 1000.0, key);
        return popped == null || !popped.hasValue() ? null : popped.getValue();
    }

    /**
     * SIGSTOP of {@code worker}, {@code stopped} once every thread of it is stopped, the rest of the fault's duration,
     * then SIGCONT; stamps as {@link Applied} says.
     */
    private static Applied stop(FaultSchedule.Fault fault, Process worker, long start, String note, Waiter waiter,
            Runnable stopped) throws InterruptedException {
        long resume;
        ProcessPause.stop(worker); // every thread of it: kill returns before they all stop
        try {
            stopped.run();
            sleepUntil(System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(start + fault.durationMs() * 1_000
                    - SoakLog.nowMicros()));
        } finally {
            resume = SoakLog.nowMicros();
            signal(worker, "CONT");
        }
        return new Applied(fault, start, resume, SoakLog.nowMicros(), note, waiter);
    }

    /** Where the controller arms worker {@code index} for a waiter stop (the worker takes it). */
    static String waitStopKey(String run, int index) {
        return run + ":waitstop:" + index;
    }

    /** Where worker {@code index}'s armed thread says {@code "<thread> <attemptUs>"} as its acquisition begins. */
    static String waitingKey(String run, int index) {
        return run + ":waiting:" + index;
    }

    /** Where the controller arms worker {@code index} to keep its next watchdog hold until let go. */
    static String holdKey(String run, int index) {
        return run + ":hold:" + index;
    }

    /** Where worker {@code index}'s armed thread says {@code "<thread> <seq>"} once it holds. */
    static String holdingKey(String run, int index) {
        return run + ":holding:" + index;
    }

    /** Where the controller lets worker {@code index}'s armed hold go. */
    static String letGoKey(String run, int index) {
        return run + ":letgo:" + index;
    }

    private static void awaitReady(RedisAdmin resource, String run, List<Process> workers) throws InterruptedException {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (String.valueOf(workers.size()).equals(resource.commands().get(run + ":ready"))) {
                return;
            }
            if (workers.stream().anyMatch(w -> !w.isAlive())) {
                throw new IllegalStateException("a soak worker exited before the go signal");
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("the soak workers were not ready within " + READY_TIMEOUT);
    }

    /** Every key with its type and PTTL, e.g. {@code hash pttl=-1}. */
    private static Map<String, String> keysAndTtls(RedisAdmin admin) {
        Map<String, String> keys = new LinkedHashMap<>();
        for (String key : admin.keys()) {
            keys.put(key, admin.commands().type(key) + " pttl=" + admin.commands().pttl(key));
        }
        return keys;
    }

    private static void sleepUntil(long nanoDeadline) throws InterruptedException {
        long left = nanoDeadline - System.nanoTime();
        if (left > 0) {
            NANOSECONDS.sleep(left);
        }
    }

    /** {@code kill -SIGNAL pid} of a process this JVM started; bounded. */
    static void signal(Process target, String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(target.pid()))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!kill.waitFor(5, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
                throw new IllegalStateException("kill -" + signal + " " + target.pid() + " hung");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sending SIG" + signal, e);
        }
    }


    /** Surefire's test class path, checked to list the test classes (as {@code CounterWorkers} does). */
    private static String workerClasspath() throws URISyntaxException {
        String classpath = System.getProperty("java.class.path");
        Path testClasses = Path.of(SoakWorker.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        boolean visible = Arrays.stream(classpath.split(File.pathSeparator))
                .map(entry -> Path.of(entry).toAbsolutePath().normalize())
                .anyMatch(testClasses.toAbsolutePath().normalize()::equals);
        if (!visible) {
            throw new IllegalStateException("java.class.path does not list " + testClasses + ": " + classpath);
        }
        return classpath;
    }
}
