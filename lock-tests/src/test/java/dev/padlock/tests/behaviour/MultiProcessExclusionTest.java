package dev.padlock.tests.behaviour;

import dev.padlock.tests.support.CounterWorker;
import dev.padlock.tests.support.CounterWorkers;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mutual exclusion across JVMs: several worker processes ({@link CounterWorker}), each with
 * several threads, increment a Redis counter non-atomically (GET, then SET value + 1) inside one
 * Padlock lock. Any overlap of two holders loses an increment, so the counter ends exact only
 * when the lock excludes across processes and threads.
 */
@RedisTest
@Tag("faults")
class MultiProcessExclusionTest {

    @Test
    void workerProcessesNeverOverlap(RedisEndpoint redis, RedisAdmin admin, @TempDir Path logs) throws Exception {
        try (CounterWorkers workers = new CounterWorkers()) {
            workers.runExactCounter(redis.uri(), admin.commands(), 3, 4, 50, logs);
        }
    }

    /**
     * Issue 13: the read-write lock's grants (its writers' line and readers' hall) across JVMs: the
     * increments under the write lock, and before each a read under the read lock.
     */
    @Test
    void workerProcessesNeverOverlapOnAReadWriteLock(RedisEndpoint redis, RedisAdmin admin, @TempDir Path logs)
            throws Exception {
        try (CounterWorkers workers = new CounterWorkers()) {
            workers.runExactCounter(redis.uri(), admin.commands(), 3, 4, 50, logs, "rw");
        }
    }

    /** Issue 13: the fair lock's grants from its line, across JVMs. */
    @Test
    void workerProcessesNeverOverlapOnAFairLock(RedisEndpoint redis, RedisAdmin admin, @TempDir Path logs) throws Exception {
        try (CounterWorkers workers = new CounterWorkers()) {
            workers.runExactCounter(redis.uri(), admin.commands(), 3, 4, 50, logs, "fair");
        }
    }
}
