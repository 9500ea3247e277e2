package dev.padlock.internal.protocol;

import dev.padlock.internal.protocol.LockProtocol.Release;
import dev.padlock.internal.redis.RedisBackend;
import dev.padlock.internal.script.LuaScript;

/**
 * Reads the replies of the scripts that publish, which say when Redis refused a message (an ACL
 * user without the lock's channels: NOPERM). Such a script goes on past the refusal, since Redis
 * does not roll back what it wrote before: the call succeeds, and the waiters the message was for
 * look again when the lease they saw runs out. The refusal is said once per client, through
 * {@link RedisBackend#messageRefused}.
 */
final class RefusedMessages {
    /** {@code lock_abandon} and the force releases: removed, and a message refused. */
    private static final long REMOVED_REFUSED = 2;

    private RefusedMessages() {
    }

    /** {@link Release#fromScript}, saying a refused message. */
    static Release release(RedisBackend backend, LuaScript script, String name, Long reply) {
        Release release = Release.fromScript(reply);
        if (release.refused()) {
            backend.messageRefused(script.file() + " on '" + name + "'");
        }
        return release;
    }

    /**
     * Reads a force release's or {@code lock_abandon}'s reply: 0 (nothing there), 1 (deleted or
     * removed) or 2 (as 1, a message refused, which it says); whether something was removed.
     */
    static boolean removed(RedisBackend backend, LuaScript script, String name, Long reply) {
        if (reply == null || reply == 0L) {
            return false;
        }
        if (reply == REMOVED_REFUSED) {
            backend.messageRefused(script.file() + " on '" + name + "'");
        }
        return true;
    }
}
