package dev.padlock.internal.protocol;

import dev.padlock.internal.redis.RedisBackend;
import dev.padlock.internal.script.LuaScript;
import dev.padlock.internal.script.ScriptRunner;
import dev.padlock.spi.LockKeys;
import io.lettuce.core.ScriptOutputType;
import java.util.concurrent.CompletableFuture;

/**
 * The fair lock: RLock's hash, plus a line of places on Redis ({@code padlock_fair_queue:{name}}),
 * first come first served across clients. A waiter takes its place at its first failed attempt
 * once its client listens on its grant channel; its place names the owner, its lease and the
 * wait's nonce ({@code <clientId>:<threadId>:<lease ms>:<nonce>}). The final unlock passes the
 * lock to the first place whose client hears the grant, in the same script call, with the lease
 * the place asked for, and says so on that client's grant channel
 * ({@code f:<threadId>:<nonce>:<name>}); a place whose client nobody listens for (gone) is passed
 * over. With nobody alive in line it wakes the first of Redisson's fair waiters, as Redisson's
 * unlock does. A waiter that gives up leaves the line ({@link #leaveQueue}); a grant that reached
 * it meanwhile is then its own, and it holds after all.
 *
 * <p>Where PUBLISH cannot count who heard a grant (a 6.2 Cluster) or a grant message is not
 * acknowledged by replicas, a grant message only wakes its owner, whose next attempt finds the
 * grant ({@link #grantMessageConfirms()} false).
 */
public final class FairLockProtocol implements LockProtocol, Granting {
    private final String name;
    private final String clientId;
    private final OwnerFields fields;
    private final ScriptRunner scripts;
    private final RedisBackend backend;
    private final long lookMillis;
    /** "1" when PUBLISH's count says who heard a grant, else "0": see {@code fair_acquire}. */
    private final String countsListeners;
    private final boolean grantMessageConfirms;
    /** The lock, its line and its holders' since: what every script but the force release writes. */
    private final String[] keys;
    /** As {@link #keys}, then Redisson's fair queue, the unlock channel and Redisson's deadlines: who a release may wake. */
    private final String[] releaseKeys;
    /** The lock, its since, the unlock channel, Redisson's fair queue and its deadlines. */
    private final String[] forceKeys;

    public FairLockProtocol(String name, ProtocolContext services) {
        this.name = name;
        this.clientId = services.clientId();
        this.fields = services.ownerFields();
        this.scripts = services.scripts();
        this.backend = services.backend();
        this.lookMillis = services.lookMillis();
        this.countsListeners = services.publishCountsListeners() ? "1" : "0";
        this.grantMessageConfirms = services.grantMessagesConfirm();
        this.keys = new String[] {name, LockKeys.fairQueue(name), LockKeys.since(name)};
        this.releaseKeys = new String[] {name, keys[1], keys[2], LockKeys.redissonFairQueue(name),
                LockKeys.unlockChannel(name), LockKeys.redissonFairDeadlines(name)};
        this.forceKeys = new String[] {name, keys[2], LockKeys.unlockChannel(name), LockKeys.redissonFairQueue(name),
                LockKeys.redissonFairDeadlines(name)};
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String ownerField(long threadId) {
        return fields.of(threadId);
    }

    /** The shared unlock channel: a force unlock and Redisson's unlocks publish there. */
    @Override
    public String unlockChannel(long threadId) {
        return LockKeys.unlockChannel(name);
    }

    @Override
    public boolean grantMessageConfirms() {
        return grantMessageConfirms;
    }

    @Override
    public String grantChannel() {
        return LockKeys.grantChannelPrefix(name) + clientId;
    }

    @Override
    public char grantKind() {
        return GrantKind.FAIR;
    }

    /** {@code fair_settle}: the granted owner's "since", dated back to the grant. */
    @Override
    public CompletableFuture<Boolean> noteGrantSince(long threadId, long elapsedMillis) {
        return scripts.<Long>runInOrder(LuaScript.FAIR_SETTLE, ScriptOutputType.INTEGER, renewKeys(threadId),
                        ownerField(threadId), Long.toString(elapsedMillis))
                .thenApply(noted -> noted != null && noted == 1L);
    }

    /**
     * A look interval: a waiter attempts again at least that often, which keeps its place and the
     * line alive (the line expires two intervals after the last look), and a lock left free with
     * places in line (an expiry, a grantee that froze) goes on to the next live place.
     */
    @Override
    public long maxParkMillis() {
        return lookMillis;
    }

    @Override
    public CompletableFuture<Attempt> tryAcquire(long leaseMillis, long threadId, boolean willWait) {
        return tryAcquire(leaseMillis, threadId, willWait, 0, false, false);
    }

    @Override
    public CompletableFuture<Attempt> tryAcquire(long leaseMillis, long threadId, boolean willWait, long placeNonce,
            boolean inLine, boolean newCount) {
        boolean place = willWait && placeNonce != 0;
        return scripts.<Long>run(LuaScript.FAIR_ACQUIRE, ScriptOutputType.INTEGER, keys,
                        Long.toString(leaseMillis), ownerField(threadId), !place ? "0" : inLine ? "2" : "1",
                        place ? place(threadId, leaseMillis, placeNonce) : "", backend.publishCommand(),
                        countsListeners, Long.toString(2 * lookMillis), newCount ? "1" : "0")
                .thenApply(Attempt::fromTtl);
    }

    private String place(long threadId, long leaseMillis, long nonce) {
        return ownerField(threadId) + ':' + leaseMillis + ':' + nonce;
    }

    @Override
    public CompletableFuture<Boolean> leaveQueue(long threadId, long leaseMillis, long placeNonce) {
        return scripts.<Long>run(LuaScript.FAIR_LEAVE, ScriptOutputType.INTEGER, keys, ownerField(threadId),
                place(threadId, leaseMillis, placeNonce), Long.toString(leaseMillis))
                .thenApply(left -> left != null && left == 2L);
    }

    @Override
    public CompletableFuture<Release> release(long threadId, long rearmLeaseMillis) {
        return scripts.<Long>run(LuaScript.FAIR_RELEASE, ScriptOutputType.INTEGER, releaseKeys,
                        Long.toString(rearmLeaseMillis), ownerField(threadId), backend.publishCommand(), countsListeners)
                .thenApply(reply -> RefusedMessages.release(backend, LuaScript.FAIR_RELEASE, name, reply));
    }

    /** Deletes the lock and publishes on the unlock channel: the first waiter to look takes it or grants it. */
    @Override
    public CompletableFuture<Boolean> forceRelease() {
        return scripts.<Long>run(LuaScript.FAIR_FORCE_RELEASE, ScriptOutputType.INTEGER, forceKeys,
                        LockKeys.UNLOCK_MESSAGE, backend.publishCommand())
                .thenApply(reply -> RefusedMessages.removed(backend, LuaScript.FAIR_FORCE_RELEASE, name, reply));
    }

    @Override
    public CompletableFuture<Attempt> confirm(long threadId) {
        return ExclusiveLockProtocol.confirm(backend, name, ownerField(threadId));
    }

    @Override
    public CompletableFuture<Attempt> confirmReentry(long threadId, int heldBefore) {
        return ExclusiveLockProtocol.confirmReentry(backend, name, ownerField(threadId), heldBefore);
    }

    /** The lock and its holders' since, renewed together by {@code lock_renew}. */
    @Override
    public String[] renewKeys(long threadId) {
        return new String[] {name, keys[2]};
    }

    @Override
    public CompletableFuture<Boolean> isLocked() {
        return backend.commands().exists(name).thenApply(count -> count > 0).toCompletableFuture();
    }
}
