package dev.padlock.internal.semaphore;

import static java.util.Objects.requireNonNull;

import dev.padlock.PermitLease;
import dev.padlock.RPermitExpirableSemaphore;
import dev.padlock.internal.base.Require;
import dev.padlock.internal.base.WaitBudget;
import dev.padlock.internal.lock.LockServices;
import dev.padlock.internal.script.LuaScript;
import dev.padlock.internal.script.ScriptRunner;
import dev.padlock.spi.LockKeys;
import io.lettuce.core.ScriptOutputType;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * {@link RPermitExpirableSemaphore} on Redis: the count {@code <name>}, the leases
 * {@code {<name>}:timeout} and the channel {@code redisson_sc:{<name>}}; each acquisition a
 * {@code permit_acquire.lua} call with a new permit id, waiting through {@link SemaphoreWait}
 * (which also looks again when the nearest lease ends, since a permit whose lease ended comes back
 * without a message); each permit a {@link RedisPermitLease}.
 */
public final class RedisPermitExpirableSemaphore implements RPermitExpirableSemaphore {
    private static final SecureRandom IDS = new SecureRandom();
    /** A lease asked for as the watchdog's. */
    private static final long WATCHDOG = -1;

    private final String name;
    /** The count, the leases, the channel. */
    private final String[] keys;
    private final LockServices services;
    private final ScriptRunner scripts;
    private final BlockingCalls calls;

    public RedisPermitExpirableSemaphore(String name, LockServices services) {
        this.name = Require.lockName(name);
        this.keys = new String[] {name, LockKeys.permitLeases(name), LockKeys.semaphoreChannel(name)};
        this.services = services;
        this.scripts = services.scripts();
        this.calls = new BlockingCalls("semaphore '" + name + "'", services);
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public boolean trySetPermits(int permits) {
        Require.argument(permits > 0, "permits must be at least 1, was %d", permits);
        Long set = calls.answer(scripts.run(LuaScript.SEMAPHORE_SET, ScriptOutputType.INTEGER,
                new String[] {keys[0], keys[2]}, Integer.toString(permits), publishCommand()), "trySetPermits");
        return set != null && set == 1L;
    }

    @Override
    public void addPermits(int permits) {
        Require.argument(permits != 0, "permits to add must not be 0");
        calls.answer(scripts.run(LuaScript.SEMAPHORE_ADD, ScriptOutputType.INTEGER, new String[] {keys[0], keys[2]},
                Integer.toString(permits), publishCommand()), "addPermits");
    }

    @Override
    public int availablePermits() {
        Long free = calls.answer(scripts.run(LuaScript.PERMIT_AVAILABLE, ScriptOutputType.INTEGER, keys,
                publishCommand()), "availablePermits");
        return free == null ? 0 : (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, free));
    }

    @Override
    public PermitLease acquire(Duration leaseTime) throws InterruptedException {
        long leaseMillis = leaseMillis(leaseTime);
        return calls.await(start(WaitBudget.FOREVER, leaseMillis), WaitBudget.FOREVER, "acquire").orElseThrow();
    }

    @Override
    public Optional<PermitLease> tryAcquire(Duration wait, Duration leaseTime) throws InterruptedException {
        long leaseMillis = leaseMillis(leaseTime);
        long waitNanos = RedisSemaphore.waitNanos(wait);
        if (waitNanos == 0) {
            return calls.answer(start(0, leaseMillis), "tryAcquire"); // one attempt: a call, an interrupt is kept
        }
        return calls.await(start(waitNanos, leaseMillis), waitNanos, "tryAcquire");
    }

    @Override
    public CompletableFuture<PermitLease> acquireAsync(Duration leaseTime) {
        long leaseMillis = leaseMillis(leaseTime);
        CompletableFuture<Optional<PermitLease>> wait = start(WaitBudget.FOREVER, leaseMillis);
        CompletableFuture<PermitLease> acquired = new CompletableFuture<>();
        wait.whenComplete((permit, failure) -> {
            if (failure != null) {
                acquired.completeExceptionally(failure);
            } else if (!acquired.complete(permit.orElseThrow())) {
                permit.get().releaseAsync(); // cancelled meanwhile: nobody will release it
            }
        });
        acquired.whenComplete((permit, failure) -> wait.cancel(false)); // a cancel of this ends the wait
        return acquired;
    }

    @Override
    public CompletableFuture<Optional<PermitLease>> tryAcquireAsync(Duration wait, Duration leaseTime) {
        return start(RedisSemaphore.waitNanos(wait), leaseMillis(leaseTime));
    }

    /** The lease in ms as asked, {@link #WATCHDOG} for {@code Duration.ZERO}. */
    private static long leaseMillis(Duration leaseTime) {
        Require.leaseTime(leaseTime);
        return leaseTime.isZero() ? WATCHDOG : Math.max(1, leaseTime.toMillis());
    }

    private String publishCommand() {
        return services.backend().publishCommand();
    }

    /**
     * A wait for one permit with a new id; completes with the permit, or empty when the wait
     * ended first. Cancelling it ends the wait, and a permit taken afterwards is given back.
     */
    private CompletableFuture<Optional<PermitLease>> start(long waitNanos, long askedMillis) {
        boolean watchdog = askedMillis == WATCHDOG;
        long leaseMillis = watchdog ? services.watchdog().leaseMillis() : askedMillis;
        String id = newId();
        long[] sentNanos = new long[1];
        SemaphoreWait wait = SemaphoreWait.start("permit " + id + " of semaphore '" + name + "'",
                new SemaphoreWait.Attempts() {
                    @Override
                    public CompletableFuture<Long> take() {
                        sentNanos[0] = services.clock().nanoTime(); // attempts run one after another
                        return scripts.run(LuaScript.PERMIT_ACQUIRE, ScriptOutputType.INTEGER, keys,
                                Long.toString(leaseMillis), id, publishCommand());
                    }

                    @Override
                    public CompletableFuture<?> giveBack() {
                        return scripts.run(LuaScript.PERMIT_RELEASE, ScriptOutputType.INTEGER, keys, id, publishCommand());
                    }

                    @Override
                    public CompletableFuture<?> giveBackIfTaken() {
                        // sent after the attempt on the same connection, so it runs after it; 0 when not taken
                        return giveBack();
                    }
                }, services.wakeUps(), keys[2], services.timer(), services.clock(), waitNanos, services.lookMillis());
        CompletableFuture<Optional<PermitLease>> result = new CompletableFuture<>();
        wait.whenComplete((taken, failure) -> {
            if (failure != null) {
                result.completeExceptionally(failure);
            } else if (!taken) {
                result.complete(Optional.empty());
            } else {
                RedisPermitLease permit = new RedisPermitLease(name, id, leaseMillis, watchdog, scripts, keys,
                        publishCommand(), services.timer(), services.clock(), calls, sentNanos[0]).start();
                if (!result.complete(Optional.of(permit))) {
                    permit.releaseAsync(); // cancelled meanwhile: nobody will release it
                }
            }
        });
        result.whenComplete((permit, failure) -> wait.cancel(false)); // a cancel of the result ends the wait
        return result;
    }

    /** A permit id as Redisson makes them: 16 random bytes in hex. */
    private static String newId() {
        byte[] bytes = new byte[16];
        IDS.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    @Override
    public String toString() {
        return "RPermitExpirableSemaphore[" + name + "]";
    }
}
