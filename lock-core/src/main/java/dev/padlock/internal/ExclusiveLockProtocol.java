package dev.padlock.internal;

import io.lettuce.core.ScriptOutputType;
import java.util.concurrent.CompletableFuture;

/** The reentrant exclusive lock of {@code RLock}: Redisson's hash-with-hold-count format. */
final class ExclusiveLockProtocol implements LockProtocol {
    private final String name;
    private final String clientId;
    private final ScriptRunner scripts;
    private final RedisBackend backend;
    /** The lock and its holders' since: what acquisitions and hand-offs write. */
    private final String[] lockKey;
    /** The lock, its channel and its holders' since: what releases write. */
    private final String[] lockAndChannel;

    ExclusiveLockProtocol(String name, LockServices services) {
        this.name = name;
        this.clientId = services.clientId();
        this.scripts = services.scripts();
        this.backend = services.backend();
        String since = LockKeys.since(name);
        this.lockKey = new String[] {name, since};
        this.lockAndChannel = new String[] {name, LockKeys.unlockChannel(name), since};
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String ownerField(long threadId) {
        return LockKeys.ownerField(clientId, threadId);
    }

    @Override
    public String unlockChannel(long threadId) {
        return lockAndChannel[1];
    }

    @Override
    public boolean handsOffLocally() {
        return true;
    }

    @Override
    public CompletableFuture<Attempt> tryAcquire(long leaseMillis, long threadId, boolean willWait) {
        return scripts.<Long>run(LuaScript.LOCK_ACQUIRE, ScriptOutputType.INTEGER, lockKey,
                Long.toString(leaseMillis), LockKeys.ownerField(clientId, threadId)).thenApply(Attempt::fromTtl);
    }

    @Override
    public boolean claims() {
        return true;
    }

    @Override
    public CompletableFuture<Attempt> tryClaim(long leaseMillis, long threadId, boolean willWait) {
        return scripts.<Long>run(LuaScript.LOCK_CLAIM, ScriptOutputType.INTEGER, lockKey,
                Long.toString(leaseMillis), LockKeys.ownerField(clientId, threadId)).thenApply(Attempt::fromTtl);
    }

    @Override
    public CompletableFuture<Boolean> abandon(long threadId) {
        return scripts.<Long>run(LuaScript.LOCK_ABANDON, ScriptOutputType.INTEGER, lockAndChannel,
                        LockKeys.UNLOCK_MESSAGE, LockKeys.ownerField(clientId, threadId), backend.publishCommand())
                .thenApply(removed -> removed != null && removed == 1L);
    }

    @Override
    public CompletableFuture<Attempt> confirm(long threadId) {
        return confirm(backend, name, ownerField(threadId));
    }

    /** {@link LockProtocol#confirm} for any kind whose owners are fields of the hash {@code key}. */
    static CompletableFuture<Attempt> confirm(RedisBackend backend, String key, String field) {
        return backend.commands().hexists(key, field).toCompletableFuture()
                .exceptionallyCompose(failure -> CompletableFuture.failedFuture(
                        backend.translate(failure, "HEXISTS on '" + key + "'")))
                .thenApply(held -> held ? Attempt.ACQUIRED : Attempt.notAcquired(-2));
    }

    @Override
    public CompletableFuture<Boolean> isLocked() {
        return backend.commands().exists(name).thenApply(count -> count > 0).toCompletableFuture();
    }

    @Override
    public CompletableFuture<Release> release(long threadId, long rearmLeaseMillis) {
        return scripts.<Long>run(LuaScript.LOCK_RELEASE, ScriptOutputType.INTEGER, lockAndChannel,
                        LockKeys.UNLOCK_MESSAGE, Long.toString(rearmLeaseMillis), LockKeys.ownerField(clientId, threadId),
                        backend.publishCommand())
                .thenApply(Release::fromScript);
    }

    @Override
    public CompletableFuture<ReleaseOutcome> handOff(long fromThreadId, long toThreadId, long leaseMillis,
            long rearmLeaseMillis) {
        return scripts.<Long>run(LuaScript.LOCK_HANDOFF, ScriptOutputType.INTEGER, lockKey,
                        Long.toString(leaseMillis), LockKeys.ownerField(clientId, fromThreadId),
                        LockKeys.ownerField(clientId, toThreadId), Long.toString(rearmLeaseMillis))
                .thenApply(ReleaseOutcome::fromScript);
    }

    /** The lock and its holders' since, renewed together by {@code lock_renew}. */
    @Override
    public String[] renewKeys(long threadId) {
        return lockKey.clone();
    }

    @Override
    public CompletableFuture<Boolean> forceRelease() {
        return scripts.<Long>run(LuaScript.LOCK_FORCE_RELEASE, ScriptOutputType.INTEGER, lockAndChannel,
                        LockKeys.UNLOCK_MESSAGE, backend.publishCommand())
                .thenApply(deleted -> deleted != null && deleted == 1L);
    }
}
