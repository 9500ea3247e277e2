package dev.padlock.tests.model;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.RReadWriteLock;
import dev.padlock.tests.model.ModelBook.Kind;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The Redisson client that {@link LockModel} drives as one more actor on the same names: an
 * {@code RLock} on the exclusive names (whatever exclusive kind the model picks: Redisson's
 * {@code RFairLock} keeps a queue and wake-up channels of its own, which Padlock's releases do not
 * serve, so it is left out), and an {@code RReadWriteLock} on the read-write names. Asynchronous
 * calls with explicit thread ids, so the model's owners of this client need no threads of their
 * own. One client serves every sequence: each sequence uses thread ids of its own.
 */
final class RedissonActor implements AutoCloseable {
    private final RedissonClient redisson;

    private RedissonActor(RedissonClient redisson) {
        this.redisson = redisson;
    }

    static RedissonActor connect(String uri) {
        Config config = new Config();
        config.setLockWatchdogTimeout(LockModel.WATCHDOG_MILLIS);
        config.useSingleServer().setAddress(uri).setConnectionMinimumIdleSize(2)
                .setSubscriptionConnectionMinimumIdleSize(1)
                .setTimeout((int) LockModel.COMMAND_TIMEOUT_MILLIS * 3);
        return new RedissonActor(Redisson.create(config));
    }

    /** The prefix of every hash field this client writes, as {@link LockClient#getId()} is for Padlock. */
    String id() {
        return redisson.getId();
    }

    private org.redisson.api.RLock lock(String name, Kind kind) {
        return switch (kind) {
            case READ -> redisson.getReadWriteLock(name).readLock();
            case WRITE -> redisson.getReadWriteLock(name).writeLock();
            default -> redisson.getLock(name);
        };
    }

    /** {@code tryLockAsync(wait, lease, ms, threadId)}; a wait of 0 is one attempt. */
    CompletableFuture<Boolean> tryLock(String name, Kind kind, long waitMillis, long leaseMillis, long threadId) {
        return lock(name, kind).tryLockAsync(waitMillis, leaseMillis, TimeUnit.MILLISECONDS, threadId)
                .toCompletableFuture();
    }

    CompletableFuture<Void> unlock(String name, Kind kind, long threadId) {
        return lock(name, kind).unlockAsync(threadId).toCompletableFuture();
    }

    CompletableFuture<Boolean> forceUnlock(String name, Kind kind) {
        return lock(name, kind).forceUnlockAsync().toCompletableFuture();
    }

    @Override
    public void close() {
        redisson.shutdown(0, 5, TimeUnit.SECONDS);
    }
}
