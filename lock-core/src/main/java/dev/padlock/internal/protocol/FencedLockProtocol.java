package dev.padlock.internal.protocol;

import dev.padlock.internal.script.LuaScript;
import dev.padlock.internal.script.ScriptRunner;
import dev.padlock.spi.LockKeys;
import io.lettuce.core.ScriptOutputType;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;

/**
 * The fenced lock: RLock's hash and release, plus a token counter
 * ({@code redisson_lock_token:{name}}, never expiring) that every new holder raises to the
 * server's clock in microseconds and then increments (see {@code fenced_acquire.lua}), so tokens
 * keep rising when Redis lost the counter. Its acquisitions take no local hand-off (each holder's
 * token comes from Redis), but it shares the plain lock's local view, and its holder hands the lock
 * to a queued plain owner.
 */
public final class FencedLockProtocol implements LockProtocol, Claiming, LocalHandOff {
    private final ExclusiveLockProtocol lock;
    private final ScriptRunner scripts;
    /** The lock, its token counter and its holders' since: fenced_acquire's keys. */
    private final String[] keys;
    /** The lock and its token counter: fenced_token's keys. */
    private final String[] tokenKeys;

    public FencedLockProtocol(String name, ProtocolContext services) {
        this.lock = new ExclusiveLockProtocol(name, services);
        this.scripts = services.scripts();
        this.tokenKeys = new String[] {name, LockKeys.fencingTokens(name)};
        this.keys = new String[] {name, LockKeys.fencingTokens(name), LockKeys.since(name)};
    }

    @Override
    public String name() {
        return lock.name();
    }

    @Override
    public String ownerField(long threadId) {
        return lock.ownerField(threadId);
    }

    @Override
    public String unlockChannel(long threadId) {
        return lock.unlockChannel(threadId);
    }

    @Override
    public CompletableFuture<Attempt> tryAcquire(long leaseMillis, long threadId, boolean willWait) {
        return acquire(Long.toString(leaseMillis), ownerField(threadId));
    }

    /** Takes no place: this kind does not grant. */
    @Override
    public CompletableFuture<Attempt> tryClaim(long leaseMillis, long threadId, boolean willWait, long placeNonce,
            boolean inLine) {
        return acquire(Long.toString(leaseMillis), ownerField(threadId), "1");
    }

    @Override
    public <R> CompletableFuture<R> firstAttempt(long leaseMillis, long threadId, boolean fresh, boolean willWait,
            BiFunction<? super Attempt, Throwable, R> handler) {
        CompletableFuture<Attempt> attempt;
        try {
            attempt = fresh ? tryClaim(leaseMillis, threadId, willWait, 0, false)
                    : tryAcquire(leaseMillis, threadId, willWait);
        } catch (RuntimeException e) {
            attempt = CompletableFuture.failedFuture(e);
        }
        return attempt.handle(handler);
    }

    /** fenced_acquire with {@code args}: see its header. */
    private CompletableFuture<Attempt> acquire(String... args) {
        return scripts.<List<Long>>run(LuaScript.FENCED_ACQUIRE, ScriptOutputType.MULTI, keys, args)
                .thenApply(reply -> reply.get(0) == 1L
                        ? new Attempt(true, 0, reply.get(1))
                        : Attempt.notAcquired(reply.get(1)));
    }

    @Override
    public CompletableFuture<Boolean> abandon(long threadId) {
        return lock.abandon(threadId);
    }

    /** Held: with the counter's value, which only a new holder moves, so it is this holder's token. */
    @Override
    public CompletableFuture<Attempt> confirm(long threadId) {
        return withToken(lock.confirm(threadId));
    }

    @Override
    public CompletableFuture<Attempt> confirmReentry(long threadId, int heldBefore) {
        return withToken(lock.confirmReentry(threadId, heldBefore));
    }

    private CompletableFuture<Attempt> withToken(CompletableFuture<Attempt> confirmed) {
        return confirmed.thenCompose(attempt -> !attempt.acquired()
                ? CompletableFuture.completedFuture(attempt)
                : token().thenApply(token -> new Attempt(true, 0, token == null ? 0 : token)));
    }

    /** The current holder's token, or {@code null} when the lock is free. */
    public CompletableFuture<Long> token() {
        return scripts.run(LuaScript.FENCED_TOKEN, ScriptOutputType.INTEGER, tokenKeys);
    }

    @Override
    public CompletableFuture<Release> release(long threadId, long rearmLeaseMillis) {
        return lock.release(threadId, rearmLeaseMillis);
    }

    /** The release alone: a fenced holder does not put this client back in line. */
    @Override
    public <R> CompletableFuture<R> release(long threadId, long rearmLeaseMillis, long nextThreadId,
            long nextLeaseMillis, long nextPlaceNonce, BiFunction<? super Release, Throwable, R> handler) {
        return release(threadId, rearmLeaseMillis).handle(handler);
    }

    /**
     * Shares the plain lock's local view, but its own acquisitions go to Redis: each holder's token
     * comes from there. Its holder may hand the lock to a queued plain owner.
     */
    @Override
    public boolean queuesLocally() {
        return false;
    }

    @Override
    public CompletableFuture<ReleaseOutcome> handOff(long fromThreadId, long toThreadId, long leaseMillis,
            long rearmLeaseMillis) {
        return lock.handOff(fromThreadId, toThreadId, leaseMillis, rearmLeaseMillis);
    }

    @Override
    public CompletableFuture<Boolean> forceRelease() {
        return lock.forceRelease();
    }

    @Override
    public CompletableFuture<Boolean> noteSince(long threadId, long heldForMillis) {
        return lock.noteSince(threadId, heldForMillis);
    }

    @Override
    public String[] renewKeys(long threadId) {
        return lock.renewKeys(threadId);
    }

    @Override
    public CompletableFuture<Boolean> isLocked() {
        return lock.isLocked();
    }
}
