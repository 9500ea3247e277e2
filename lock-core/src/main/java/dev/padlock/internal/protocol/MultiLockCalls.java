package dev.padlock.internal.protocol;

import dev.padlock.internal.protocol.LockProtocol.ReleaseOutcome;
import dev.padlock.internal.script.LuaScript;
import dev.padlock.spi.LockKeys;
import io.lettuce.core.ScriptOutputType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A multi lock's plain locks of one client in one script call each way: {@code multi_acquire}
 * takes every lock for one owner or none, {@code multi_release} drops one hold of the owner on each.
 * Each lock's hash is the plain lock's ({@link ExclusiveLockProtocol}), so a plain lock, a Redisson
 * {@code RLock} and these calls exclude each other; a lock's keys are one slot's, the calls' keys
 * all of one slot on a Cluster (the caller groups them).
 */
public final class MultiLockCalls {
    /** What {@link #claim} answers when the owner now holds every lock. */
    public static final int ALL_HELD = 0;
    /** {@code multi_release}'s per-lock codes: see its header. */
    private static final long NOT_HELD = 0;
    private static final long HOLDS_REMAIN = 1;
    private static final long RELEASED_REFUSED = 3;

    private final ProtocolContext client;

    public MultiLockCalls(ProtocolContext client) {
        this.client = client;
    }

    /**
     * Claims {@code names} for {@code owner}, who holds none of them as this client knows: a field
     * of the owner found is a count left behind, and its new count is 1 (as {@code lock_claim}), so
     * the call may be sent again; a landed call whose caller gave up is given back by each lock's
     * {@link Claiming#abandon}.
     *
     * @param ttlMillis the lease the locks get
     * @return {@link #ALL_HELD}, or the 1-based index in {@code names} of a lock held by another
     *     owner (nothing was written)
     */
    public CompletableFuture<Integer> claim(List<String> names, long ttlMillis, long owner) {
        return acquire(names, ttlMillis, owner, true);
    }

    /**
     * Re-enters {@code names} for {@code owner}, who holds every one of them (as {@code lock_acquire}:
     * one more hold each, the TTL raised to the lease, never lowered); a landed call whose caller gave
     * up is given back, where Redis counts it, by a release of each.
     *
     * @return as {@link #claim}
     */
    public CompletableFuture<Integer> reenter(List<String> names, long ttlMillis, long owner) {
        return acquire(names, ttlMillis, owner, false);
    }

    private CompletableFuture<Integer> acquire(List<String> names, long ttlMillis, long owner, boolean claim) {
        String[] keys = new String[2 * names.size()];
        for (int i = 0; i < names.size(); i++) {
            keys[2 * i] = names.get(i);
            keys[2 * i + 1] = LockKeys.since(names.get(i));
        }
        return client.scripts().<List<Object>>run(LuaScript.MULTI_ACQUIRE, ScriptOutputType.MULTI, keys,
                ScriptArgs.millis(ttlMillis), client.ownerFields().of(owner), claim ? "1" : "0")
                .thenApply(MultiLockCalls::heldElsewhere);
    }

    /** {@code multi_acquire}'s reply: nil (which Lettuce may give as null, an empty list or one null) or {i, pttl}. */
    private static int heldElsewhere(@org.jspecify.annotations.Nullable List<Object> reply) {
        if (reply == null || reply.isEmpty() || reply.get(0) == null) {
            return ALL_HELD;
        }
        return ((Number) reply.get(0)).intValue();
    }

    /**
     * Drops one hold of {@code owner} on each of {@code names}; the last one deletes the lock and
     * publishes the unlock message on its channel (a refused message is said once per client).
     *
     * @param rearmMillis the lease to re-arm after an inner release, never shortening; 0 keeps it
     * @return each lock's outcome, in the order of {@code names}
     */
    public CompletableFuture<List<ReleaseOutcome>> release(List<String> names, long rearmMillis, long owner) {
        String[] keys = new String[3 * names.size()];
        for (int i = 0; i < names.size(); i++) {
            keys[3 * i] = names.get(i);
            keys[3 * i + 1] = LockKeys.unlockChannel(names.get(i));
            keys[3 * i + 2] = LockKeys.since(names.get(i));
        }
        return client.scripts().<List<Object>>run(LuaScript.MULTI_RELEASE, ScriptOutputType.MULTI, keys,
                LockKeys.UNLOCK_MESSAGE, ScriptArgs.millis(rearmMillis), client.ownerFields().of(owner),
                client.backend().publishCommand())
                .thenApply(reply -> {
                    List<ReleaseOutcome> outcomes = new ArrayList<>(names.size());
                    for (int i = 0; i < names.size(); i++) {
                        long code = ((Number) reply.get(i)).longValue();
                        if (code == RELEASED_REFUSED) {
                            client.backend().messageRefused(LuaScript.MULTI_RELEASE.file() + " on '" + names.get(i) + "'");
                        }
                        outcomes.add(code == NOT_HELD ? ReleaseOutcome.NOT_HELD
                                : code == HOLDS_REMAIN ? ReleaseOutcome.STILL_HELD : ReleaseOutcome.RELEASED);
                    }
                    return outcomes;
                });
    }
}
