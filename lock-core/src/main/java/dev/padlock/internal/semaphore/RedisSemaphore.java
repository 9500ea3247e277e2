package dev.padlock.internal.semaphore;

import static java.util.Objects.requireNonNull;

import dev.padlock.RSemaphore;
import dev.padlock.RedisUnavailableException;
import dev.padlock.internal.base.Require;
import dev.padlock.internal.base.WaitBudget;
import dev.padlock.internal.lock.LockServices;
import dev.padlock.internal.script.LuaScript;
import dev.padlock.internal.script.ScriptRunner;
import dev.padlock.spi.LockKeys;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * {@link RSemaphore} on Redis: each call one script of {@code lock-lua} ({@code semaphore_*.lua})
 * on the key {@code <name>} (and, for the calls that publish, its channel), waits through
 * {@link SemaphoreWait}. A release first hands its permits to this client's parked waiters on the
 * same semaphore, with no Redis call, within their budget ({@link PermitHandOffs}); only the rest
 * is released on Redis. The blocking methods wait at most their wait plus twice the command
 * timeout, then cancel the wait and throw {@link dev.padlock.RedisUnavailableException}.
 */
public final class RedisSemaphore implements RSemaphore {
    private final String name;
    private final String[] keys;
    private final String[] keyAndChannel;
    private final LockServices services;
    private final ScriptRunner scripts;
    private final BlockingCalls calls;
    private final PermitHandOffs handOffs;

    /** @param handOffs the client's hand-offs of counted permits, shared by its semaphores */
    public RedisSemaphore(String name, LockServices services, PermitHandOffs handOffs) {
        this.name = Require.lockName(name);
        this.keys = new String[] {name};
        this.keyAndChannel = new String[] {name, LockKeys.semaphoreChannel(name)};
        this.services = services;
        this.scripts = services.scripts();
        this.calls = new BlockingCalls("semaphore '" + name + "'", services);
        this.handOffs = requireNonNull(handOffs, "handOffs");
    }

    @Override
    public String getName() {
        return name;
    }

    private static void permits(int permits) {
        Require.argument(permits > 0, "permits must be at least 1, was %d", permits);
    }

    @Override
    public boolean trySetPermits(int permits) {
        permits(permits);
        Long set = calls.answer(scripts.run(LuaScript.SEMAPHORE_SET, ScriptOutputType.INTEGER, keyAndChannel,
                Integer.toString(permits), services.backend().publishCommand()), "trySetPermits");
        return set != null && set == 1L;
    }

    @Override
    public void addPermits(int permits) {
        Require.argument(permits != 0, "permits to add must not be 0");
        calls.answer(scripts.run(LuaScript.SEMAPHORE_ADD, ScriptOutputType.INTEGER, keyAndChannel, Integer.toString(permits),
                services.backend().publishCommand()), "addPermits");
    }

    @Override
    public int availablePermits() {
        CompletableFuture<String> read = services.backend().commands().get(name).toCompletableFuture();
        String count = calls.answer(read, "availablePermits");
        return count == null ? 0 : clamp(Long.parseLong(count));
    }

    @Override
    public int drainPermits() {
        Long drained = calls.answer(scripts.run(LuaScript.SEMAPHORE_DRAIN, ScriptOutputType.INTEGER, keys), "drainPermits");
        return drained == null ? 0 : clamp(drained);
    }

    private static int clamp(long count) {
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, count));
    }

    @Override
    public void acquire(int permits) throws InterruptedException {
        permits(permits);
        await(start(permits, WaitBudget.FOREVER), WaitBudget.FOREVER, "acquire");
    }

    @Override
    public boolean tryAcquire(int permits) {
        permits(permits);
        return calls.answer(start(permits, 0), "tryAcquire"); // one attempt: a call, and an interrupt is kept
    }

    @Override
    public boolean tryAcquire(int permits, Duration wait) throws InterruptedException {
        permits(permits);
        long waitNanos = waitNanos(wait);
        return await(start(permits, waitNanos), waitNanos, "tryAcquire");
    }

    /**
     * {@link BlockingCalls#await}, except that a wait that took its permits (from Redis, or
     * handed off) just before the interrupt or the bound could cancel it keeps them: the caller
     * is told they are taken (an interrupt kept for it), never left holding permits it was told
     * it has not.
     */
    private boolean await(SemaphoreWait wait, long waitNanos, String operation) throws InterruptedException {
        try {
            return calls.await(wait, waitNanos, operation);
        } catch (InterruptedException e) {
            if (tookPermits(wait)) {
                Thread.currentThread().interrupt();
                return true;
            }
            throw e;
        } catch (RedisUnavailableException e) {
            if (tookPermits(wait)) {
                return true;
            }
            throw e;
        }
    }

    private static boolean tookPermits(SemaphoreWait wait) {
        return wait.isDone() && !wait.isCompletedExceptionally() && wait.join();
    }

    static long waitNanos(Duration wait) {
        requireNonNull(wait, "wait");
        Require.argument(!wait.isNegative(), "wait must not be negative, was %s", wait);
        return wait.compareTo(Duration.ofNanos(WaitBudget.FOREVER / 4)) >= 0 ? WaitBudget.FOREVER : wait.toNanos();
    }

    @Override
    public void release(int permits) {
        calls.answer(releaseAsync(permits), "release");
    }

    @Override
    public CompletableFuture<Void> acquireAsync(int permits) {
        permits(permits);
        SemaphoreWait wait = start(permits, WaitBudget.FOREVER);
        CompletableFuture<Void> acquired = wait.thenApply(taken -> null);
        acquired.whenComplete((taken, failure) -> {
            if (failure == null) {
                wait.cancel(false); // completed: the wait is done (unless completed from outside)
            } else {
                wait.abandon(); // a cancel of this ends the wait, or gives back what it took just before
            }
        });
        return acquired;
    }

    @Override
    public CompletableFuture<Boolean> tryAcquireAsync(int permits, Duration wait) {
        permits(permits);
        return start(permits, waitNanos(wait));
    }

    @Override
    public CompletableFuture<Void> releaseAsync(int permits) {
        permits(permits);
        int left = handOffs.handOff(name, permits);
        return left == 0 ? CompletableFuture.completedFuture(null) : releaseOnRedis(left);
    }

    /** Releases {@code permits} on Redis, waking the waiters of every client. */
    private CompletableFuture<Void> releaseOnRedis(int permits) {
        CompletableFuture<List<Object>> released = scripts.run(LuaScript.SEMAPHORE_RELEASE, ScriptOutputType.MULTI,
                keyAndChannel, Integer.toString(permits), services.backend().publishCommand());
        return released.thenApply(reply -> {
            if (Long.valueOf(-1).equals(reply.get(1))) {
                services.backend().messageRefused("semaphore_release on '" + name + "'");
            }
            return null;
        });
    }

    private SemaphoreWait start(int permits, long waitNanos) {
        return SemaphoreWait.start(permits + " permit(s) of semaphore '" + name + "'", new SemaphoreWait.Attempts() {
            @Override
            public CompletableFuture<Long> take() {
                return scripts.<Long, Long>run(LuaScript.SEMAPHORE_ACQUIRE, ScriptOutputType.INTEGER,
                        taken -> taken != null && taken == 1L ? SemaphoreWait.TAKEN : SemaphoreWait.NO_LEASE_ENDS, keys,
                        Integer.toString(permits));
            }

            @Override
            public CompletableFuture<?> giveBack() {
                return releaseOnRedis(permits);
            }

            @Override
            public void waiting(SemaphoreWait wait) {
                handOffs.add(name, permits, wait);
                wait.whenComplete((taken, failure) -> handOffs.remove(name, wait));
            }
        }, services.wakeUps(), keyAndChannel[1], services.timer(), services.clock(), waitNanos, services.lookMillis());
    }

    @Override
    public String toString() {
        return "RSemaphore[" + name + "]";
    }
}
