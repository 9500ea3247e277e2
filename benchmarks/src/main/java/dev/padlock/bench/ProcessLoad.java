package dev.padlock.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A {@link Load} of {@link LoadWorker} JVMs ({@link WorkerProcess}es). Commands go to every
 * worker before any answer is read, so the workers start and stop together.
 */
final class ProcessLoad implements Load {

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(60);

    private final List<WorkerProcess> workers = new ArrayList<>();

    /**
     * Launches {@code processes} workers of {@code threads} threads on {@code lock} {@code lockName}
     * (for a read-write lock, {@code readRatio} of the acquisitions read) and waits until all are
     * ready (paused). Every thread of every worker has a seed of its own, the same in every run.
     */
    ProcessLoad(LockLibrary library, RedisTarget target, String lockName, int processes, int threads,
            long leaseMillis, ContendedLock lock, double readRatio) {
        try {
            for (int i = 0; i < processes; i++) {
                workers.add(WorkerProcess.launch("worker " + i, LoadWorker.class, List.of(library.name(),
                        target.argument(), lockName, String.valueOf(threads), String.valueOf(leaseMillis),
                        lock.name(), String.valueOf(readRatio), String.valueOf((long) i * threads))));
            }
            for (WorkerProcess worker : workers) {
                worker.expect("READY", READY_TIMEOUT);
            }
        } catch (RuntimeException e) {
            try {
                close();
            } catch (RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    @Override
    public void resume() {
        workers.forEach(worker -> worker.send("RESUME"));
    }

    /**
     * {@inheritDoc} The counts are in the order of the workers, each worker's threads in a row:
     * {@link #perProcess} groups them.
     */
    @Override
    public long[] pause() {
        workers.forEach(worker -> worker.send("PAUSE"));
        return answers("PAUSED");
    }

    /** Every worker's answer {@code <keyword> <count per thread>}, the counts in a row. */
    private long[] answers(String keyword) {
        List<Long> counts = new ArrayList<>();
        for (WorkerProcess worker : workers) {
            String answer = worker.expect(keyword + " ", ANSWER_TIMEOUT);
            Arrays.stream(answer.substring(keyword.length()).trim().split(" "))
                    .map(Long::parseLong).forEach(counts::add);
        }
        return counts.stream().mapToLong(Long::longValue).toArray();
    }

    /** {@inheritDoc} Each worker reads its counts when the request reaches it. */
    @Override
    public long[] counts() {
        workers.forEach(worker -> worker.send("COUNT"));
        return answers("COUNTS");
    }

    /** Sums {@code perThread}, as {@link #pause} returns it, per worker of {@code threads} threads. */
    static long[] perProcess(long[] perThread, int threads) {
        if (threads <= 0 || perThread.length % threads != 0) {
            throw new IllegalArgumentException(perThread.length + " counts are not whole workers of " + threads
                    + " threads");
        }
        long[] sums = new long[perThread.length / threads];
        for (int i = 0; i < perThread.length; i++) {
            sums[i / threads] += perThread[i];
        }
        return sums;
    }

    @Override
    public void close() {
        WorkerProcess.stopAll(workers);
    }
}
