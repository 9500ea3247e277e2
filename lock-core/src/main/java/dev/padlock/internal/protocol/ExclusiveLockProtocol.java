package dev.padlock.internal.protocol;

import dev.padlock.internal.redis.RedisBackend;
import dev.padlock.internal.script.LuaScript;
import dev.padlock.internal.script.ScriptRunner;
import dev.padlock.spi.LockKeys;
import io.lettuce.core.ScriptOutputType;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The reentrant exclusive lock of {@code RLock}: Redisson's hash-with-hold-count format.
 *
 * <p><b>Grants across clients.</b> A waiting client gets in line on Redis with its head owner's
 * failed claim ({@code lock_claim}: its place names the owner and its lease, and lasts
 * {@link #placeMillis()} unless refreshed), and a final release ({@code lock_release}) passes the
 * lock to the first client in line in the same call, publishing only on that client's grant
 * channel: one message per hand-over between clients, no herd. A grant writes the lease the owner
 * asked for, so the owner holds exactly as if its own attempt had taken the lock; a client that
 * died in line is passed over (nobody hears its grant), one that froze holds it for that lease, as
 * a holder that froze does. Off when the client waits for replica acknowledgements: a grant
 * message is not acknowledged.
 */
public final class ExclusiveLockProtocol implements LockProtocol, Claiming, Granting, LocalHandOff {
    /** No owner: a release that hands the lock to nobody. */
    public static final long NO_OWNER = Long.MIN_VALUE;

    private final String name;
    /** The client's connections, scripts, owner fields and settings, read at each use, not copied. */
    private final ProtocolContext services;
    /** The lock alone: what a claim without a place in line writes. */
    private final String[] lockOnly;
    // The other keys are made at their first use and kept (volatile: a made array is seen whole),
    // so that a lock object that is only taken, as a held lock's is, keeps no more than it needs.
    /** The lock and its holders' since: what re-entries, hand-offs and since notes write. */
    private volatile String @Nullable [] lockKey;
    /** The lock, its channel and its holders' since: what releases without grants write. */
    private volatile String @Nullable [] lockAndChannel;
    /** The lock, the line and this client's place: what claims in line write. */
    private volatile String @Nullable [] claimKeys;
    /** The lock, its channel, its since, the line and this client's place: what releases that grant write. */
    private volatile String @Nullable [] releaseKeys;
    private volatile @Nullable String grantChannel;
    private final boolean grants;
    /** Reads a {@code lock_release} reply, noting a refused message: made once, not per unlock. */
    private final Function<Long, Release> releaseReply = this::readRelease;

    public ExclusiveLockProtocol(String name, ProtocolContext services) {
        this.name = name;
        this.services = services;
        this.lockOnly = new String[] {name};
        // a grant trusts PUBLISH's count of who heard it: on a Cluster only SPUBLISH counts them all
        this.grants = services.grantMessagesConfirm();
    }

    private String[] lockKey() {
        String[] keys = lockKey;
        if (keys == null) {
            keys = new String[] {name, LockKeys.since(name)};
            lockKey = keys;
        }
        return keys;
    }

    private String[] lockAndChannel() {
        String[] keys = lockAndChannel;
        if (keys == null) {
            keys = new String[] {name, LockKeys.unlockChannel(name), LockKeys.since(name)};
            lockAndChannel = keys;
        }
        return keys;
    }

    private String[] claimKeys() {
        String[] keys = claimKeys;
        if (keys == null) {
            keys = new String[] {name, LockKeys.waiterQueue(name),
                LockKeys.waiterPlacePrefix(name) + services.clientId()};
            claimKeys = keys;
        }
        return keys;
    }

    private String[] releaseKeys() {
        String[] keys = releaseKeys;
        if (keys == null) {
            keys = new String[] {name, LockKeys.unlockChannel(name), LockKeys.since(name), LockKeys.waiterQueue(name),
                LockKeys.waiterPlacePrefix(name) + services.clientId()};
            releaseKeys = keys;
        }
        return keys;
    }

    /** {@code threadId}'s field, {@code <clientId>:<threadId>}. */
    private String field(long threadId) {
        return services.ownerFields().of(threadId);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String ownerField(long threadId) {
        return field(threadId);
    }

    @Override
    public String unlockChannel(long threadId) {
        return lockAndChannel()[1];
    }

    @Override
    public boolean queuesLocally() {
        return true;
    }

    @Override
    public CompletableFuture<Attempt> tryAcquire(long leaseMillis, long threadId, boolean willWait) {
        return services.scripts().run(LuaScript.LOCK_ACQUIRE, ScriptOutputType.INTEGER, Attempt::fromTtl, lockKey(),
                ScriptArgs.millis(leaseMillis), field(threadId));
    }

    /**
     * Takes no place: this kind's places are taken by claims, and an attempt that is not one is the
     * re-entry of an owner that holds.
     */
    @Override
    public CompletableFuture<Attempt> tryAcquire(long leaseMillis, long threadId, boolean willWait, long placeNonce,
            boolean inLine, boolean newCount) {
        return tryAcquire(leaseMillis, threadId, willWait);
    }

    @Override
    public <R> CompletableFuture<R> firstAttempt(long leaseMillis, long threadId, boolean fresh, boolean willWait,
            BiFunction<? super Attempt, Throwable, R> handler) {
        // what tryClaim without a place and tryAcquire send, the handler in the reply's stage (this kind claims)
        return fresh ? services.scripts().run(LuaScript.LOCK_CLAIM, ScriptOutputType.INTEGER, Attempt::fromTtl, handler,
                        lockOnly, ScriptArgs.millis(leaseMillis), field(threadId))
                : services.scripts().run(LuaScript.LOCK_ACQUIRE, ScriptOutputType.INTEGER, Attempt::fromTtl, handler,
                        lockKey(), ScriptArgs.millis(leaseMillis), field(threadId));
    }

    @Override
    public CompletableFuture<Attempt> tryClaim(long leaseMillis, long threadId, boolean willWait, long placeNonce,
            boolean inLine) {
        boolean takesPlace = grants && willWait && placeNonce != 0;
        if (!takesPlace && !inLine) {
            // the line's arguments are optional: a claim that neither takes nor leaves a place sends none
            return services.scripts().run(LuaScript.LOCK_CLAIM, ScriptOutputType.INTEGER, Attempt::fromTtl, lockOnly,
                    ScriptArgs.millis(leaseMillis), field(threadId));
        }
        String place = takesPlace ? place(threadId, leaseMillis, placeNonce) : "";
        return services.scripts().run(LuaScript.LOCK_CLAIM, ScriptOutputType.INTEGER, Attempt::fromTtl, claimKeys(),
                ScriptArgs.millis(leaseMillis), field(threadId), place,
                ScriptArgs.millis(placeMillis()), services.clientId(), inLine ? "1" : "0");
    }

    /** This lock's line: only when its grants are on (see the class notes). */
    @Override
    public @Nullable Granting granting() {
        return grants ? this : null;
    }

    @Override
    public boolean grantMessageConfirms() {
        return true; // its grants are on only where a grant message confirms
    }

    @Override
    public char grantKind() {
        return GrantKind.PLAIN;
    }

    @Override
    public String grantChannel() {
        String channel = grantChannel;
        if (channel == null) {
            channel = LockKeys.grantChannelPrefix(name) + services.clientId();
            grantChannel = channel;
        }
        return channel;
    }

    /**
     * What a place in line says: the owner a grant goes to, the lease it asked for, and the nonce
     * its grant message carries back.
     */
    private String place(long threadId, long leaseMillis, long nonce) {
        return threadId + ":" + leaseMillis + ":" + nonce;
    }

    /**
     * How long a place in line lasts unless refreshed: two look intervals, while a waiter in line
     * parks at most one ({@link #maxParkMillis()}) before it claims again and so refreshes it.
     */
    private long placeMillis() {
        return 2 * services.lookMillis();
    }

    /**
     * A waiter in line looks again at least once a look interval, which keeps its place; a lease
     * that ran out frees the lock without a message.
     */
    @Override
    public long maxParkMillis() {
        return grants ? services.lookMillis() : Long.MAX_VALUE;
    }

    @Override
    public CompletableFuture<Void> leaveQueue(long threadId) {
        if (!grants) {
            return CompletableFuture.completedFuture(null);
        }
        return services.scripts().<Long>run(LuaScript.LOCK_LEAVE, ScriptOutputType.INTEGER,
                new String[] {claimKeys()[1], claimKeys()[2]}, services.clientId(), Long.toString(threadId))
                .thenApply(left -> null);
    }

    /** Leaves this client's place, which is not the nonce's but the client's: never finds a grant. */
    @Override
    public CompletableFuture<Boolean> leaveQueue(long threadId, long leaseMillis, long placeNonce) {
        return leaveQueue(threadId).thenApply(left -> false);
    }

    @Override
    public CompletableFuture<Boolean> abandon(long threadId) {
        return services.scripts().<Long>run(LuaScript.LOCK_ABANDON, ScriptOutputType.INTEGER, lockAndChannel(),
                        LockKeys.UNLOCK_MESSAGE, field(threadId), services.backend().publishCommand())
                .thenApply(reply -> RefusedMessages.removed(services.backend(), LuaScript.LOCK_ABANDON, name, reply));
    }

    @Override
    public CompletableFuture<Attempt> confirm(long threadId) {
        return confirm(services.backend(), name, ownerField(threadId));
    }

    @Override
    public CompletableFuture<Attempt> confirmReentry(long threadId, int heldBefore) {
        return confirmReentry(services.backend(), name, ownerField(threadId), heldBefore);
    }

    /** {@link LockProtocol#confirmReentry} for any kind whose owners count their holds in the hash {@code key}. */
    static CompletableFuture<Attempt> confirmReentry(RedisBackend backend, String key, String field, int heldBefore) {
        return backend.commands().hget(key, field).toCompletableFuture()
                .exceptionallyCompose(failure -> CompletableFuture.failedFuture(
                        backend.translate(failure, "HGET on '" + key + "'")))
                .thenApply(count -> count != null && Long.parseLong(count) > heldBefore
                        ? Attempt.ACQUIRED : Attempt.notAcquired(-2));
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
        return services.backend().commands().exists(name).thenApply(count -> count > 0).toCompletableFuture();
    }

    @Override
    public CompletableFuture<Release> release(long threadId, long rearmLeaseMillis) {
        return sendRelease(threadId, rearmLeaseMillis, NO_OWNER, 0, 0, null);
    }

    @Override
    public <R> CompletableFuture<R> release(long threadId, long rearmLeaseMillis, long nextThreadId,
            long nextLeaseMillis, long nextPlaceNonce, BiFunction<? super Release, Throwable, R> handler) {
        return sendRelease(threadId, rearmLeaseMillis, nextThreadId, nextLeaseMillis, nextPlaceNonce, handler);
    }

    /** {@link LocalHandOff#release}; without a {@code handler}, the release itself. */
    private <R> CompletableFuture<R> sendRelease(long threadId, long rearmLeaseMillis, long nextThreadId,
            long nextLeaseMillis, long nextPlaceNonce, @Nullable BiFunction<? super Release, Throwable, R> handler) {
        ScriptRunner scripts = services.scripts();
        String rearm = ScriptArgs.millis(rearmLeaseMillis);
        String publish = services.backend().publishCommand();
        if (!grants) {
            return scripts.run(LuaScript.LOCK_RELEASE, ScriptOutputType.INTEGER, releaseReply, handler,
                    lockAndChannel(), LockKeys.UNLOCK_MESSAGE, rearm, field(threadId), publish);
        }
        return nextThreadId == NO_OWNER
                ? scripts.run(LuaScript.LOCK_RELEASE, ScriptOutputType.INTEGER, releaseReply, handler,
                        releaseKeys(), LockKeys.UNLOCK_MESSAGE, rearm, field(threadId), publish)
                : scripts.run(LuaScript.LOCK_RELEASE, ScriptOutputType.INTEGER, releaseReply, handler,
                        releaseKeys(), LockKeys.UNLOCK_MESSAGE, rearm, field(threadId), publish,
                        place(nextThreadId, nextLeaseMillis, nextPlaceNonce), ScriptArgs.millis(placeMillis()));
    }

    private Release readRelease(Long reply) {
        return RefusedMessages.release(services.backend(), LuaScript.LOCK_RELEASE, name, reply);
    }

    @Override
    public CompletableFuture<ReleaseOutcome> handOff(long fromThreadId, long toThreadId, long leaseMillis,
            long rearmLeaseMillis) {
        return services.scripts().<Long>run(LuaScript.LOCK_HANDOFF, ScriptOutputType.INTEGER, lockKey(),
                        ScriptArgs.millis(leaseMillis), field(fromThreadId),
                        field(toThreadId), ScriptArgs.millis(rearmLeaseMillis))
                .thenApply(ReleaseOutcome::fromScript);
    }

    @Override
    public CompletableFuture<Boolean> noteSince(long threadId, long heldForMillis) {
        // once per hold that lasts: made for the call, not kept (a held lock keeps its protocol)
        String[] keys = {name, LockKeys.since(name)};
        return services.scripts().<Long>run(LuaScript.LOCK_SINCE, ScriptOutputType.INTEGER, keys, field(threadId),
                ScriptArgs.millis(heldForMillis))
                .thenApply(written -> written != null && written == 1L);
    }

    /** The lock and its holders' since, renewed together by {@code lock_renew}. */
    @Override
    public String[] renewKeys(long threadId) {
        return new String[] {name, LockKeys.since(name)}; // made for each round, not kept by a held lock
    }

    @Override
    public CompletableFuture<Boolean> forceRelease() {
        return services.scripts().<Long>run(LuaScript.LOCK_FORCE_RELEASE, ScriptOutputType.INTEGER, lockAndChannel(),
                        LockKeys.UNLOCK_MESSAGE, services.backend().publishCommand())
                .thenApply(reply -> RefusedMessages.removed(services.backend(), LuaScript.LOCK_FORCE_RELEASE, name,
                        reply));
    }
}
