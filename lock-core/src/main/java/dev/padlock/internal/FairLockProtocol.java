package dev.padlock.internal;

import io.lettuce.core.ScriptOutputType;
import java.util.concurrent.CompletableFuture;

/**
 * The fair lock: RLock's hash, plus a queue of waiters on Redis ({@code redisson_lock_queue:{name}})
 * with a deadline each ({@code redisson_lock_timeout:{name}}). A waiter joins the queue at its
 * first failed attempt and refreshes its deadline at every attempt; an unlock publishes only on
 * the channel of the first waiter in line, {@code redisson_lock__channel:{name}:<owner field>}.
 * A waiter that gives up leaves the queue ({@link #leaveQueue}); one that dies is dropped when
 * its deadline passes (the holder's lease then {@code fairWaiterTimeout}).
 */
final class FairLockProtocol implements LockProtocol {
    private final String name;
    private final String clientId;
    private final ScriptRunner scripts;
    private final RedisBackend backend;
    private final String patienceMillis;
    /** The lock, its queue, its deadlines and its holders' since: fair_acquire's keys. */
    private final String[] acquireKeys;
    /** The lock, its queue, its deadlines and its channel: fair_leave's keys. */
    private final String[] queueKeys;
    /** {@link #queueKeys} and the holders' since: the release scripts' keys. */
    private final String[] releaseKeys;

    FairLockProtocol(String name, LockServices services, long patienceMillis) {
        this.name = name;
        this.clientId = services.clientId();
        this.scripts = services.scripts();
        this.backend = services.backend();
        this.patienceMillis = Long.toString(patienceMillis);
        String since = LockKeys.since(name);
        this.acquireKeys = new String[] {name, LockKeys.fairQueue(name), LockKeys.fairTimeouts(name), since};
        this.queueKeys = new String[] {name, acquireKeys[1], acquireKeys[2], LockKeys.unlockChannel(name)};
        this.releaseKeys = new String[] {name, acquireKeys[1], acquireKeys[2], queueKeys[3], since};
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
        return LockKeys.fairWaiterChannel(name, ownerField(threadId));
    }

    @Override
    public CompletableFuture<Attempt> tryAcquire(long leaseMillis, long threadId, boolean willWait) {
        return scripts.<Long>run(LuaScript.FAIR_ACQUIRE, ScriptOutputType.INTEGER, acquireKeys,
                        Long.toString(leaseMillis), ownerField(threadId), patienceMillis, willWait ? "1" : "0")
                .thenApply(Attempt::fromTtl);
    }

    @Override
    public CompletableFuture<Void> leaveQueue(long threadId) {
        return scripts.<Long>run(LuaScript.FAIR_LEAVE, ScriptOutputType.INTEGER, queueKeys,
                LockKeys.UNLOCK_MESSAGE, ownerField(threadId), backend.publishCommand()).thenApply(removed -> null);
    }

    @Override
    public CompletableFuture<Release> release(long threadId, long rearmLeaseMillis) {
        return scripts.<Long>run(LuaScript.FAIR_RELEASE, ScriptOutputType.INTEGER, releaseKeys,
                        LockKeys.UNLOCK_MESSAGE, Long.toString(rearmLeaseMillis), ownerField(threadId),
                        backend.publishCommand())
                .thenApply(Release::fromScript);
    }

    @Override
    public CompletableFuture<Boolean> forceRelease() {
        return scripts.<Long>run(LuaScript.FAIR_FORCE_RELEASE, ScriptOutputType.INTEGER, releaseKeys,
                        LockKeys.UNLOCK_MESSAGE, backend.publishCommand())
                .thenApply(deleted -> deleted != null && deleted == 1L);
    }

    @Override
    public CompletableFuture<Attempt> confirm(long threadId) {
        return ExclusiveLockProtocol.confirm(backend, name, ownerField(threadId));
    }

    /** The lock and its holders' since, renewed together by {@code lock_renew}. */
    @Override
    public String[] renewKeys(long threadId) {
        return new String[] {name, releaseKeys[4]};
    }

    @Override
    public CompletableFuture<Boolean> isLocked() {
        return backend.commands().exists(name).thenApply(count -> count > 0).toCompletableFuture();
    }
}
