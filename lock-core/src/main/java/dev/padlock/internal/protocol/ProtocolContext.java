package dev.padlock.internal.protocol;

import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.redis.RedisBackend;
import dev.padlock.internal.script.ScriptRunner;

/** What a lock kind's protocol needs of its client: who it is, its connections and scripts, and its line timings. */
public interface ProtocolContext {

    /** The client's id, the first part of every hash field it writes. */
    String clientId();

    /** The client's owner fields, {@code <clientId>:<threadId>}, shared by all its locks. */
    OwnerFields ownerFields();

    RedisBackend backend();

    ScriptRunner scripts();

    /** The engine's clock: the client's in production, a manual one in tests. */
    EngineClock clock();

    /** How often, at most, a waiter with a place in a line on Redis looks at the lock again. */
    long lookMillis();

    /**
     * Whether a PUBLISH's count tells who heard a grant: not on a 6.2 Cluster, where a classic
     * PUBLISH counts only its own node's listeners.
     */
    boolean publishCountsListeners();

    /** Whether a grant message alone may tell its owner that it holds. */
    boolean grantMessagesConfirm();
}
