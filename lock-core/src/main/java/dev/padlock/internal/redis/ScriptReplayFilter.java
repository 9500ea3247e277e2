package dev.padlock.internal.redis;

import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.lettuce.core.protocol.RedisCommand;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.util.function.Predicate;

/**
 * Lettuce's replay filter: after a reconnect Lettuce sends again what was in flight when the
 * connection dropped (at least once), and a script may then run twice: a re-entry or a release
 * counted twice is a hold too many or too few. So no script is replayed, and none waits in
 * Lettuce's buffer while the connection is down: each fails at once with
 * {@link RedisConnectionException}, and its caller decides what a script with an unknown outcome
 * means (an acquisition sends an idempotent claim again or asks whether its field is there; an
 * unlock says it could not be confirmed). Plain commands (reads, {@code PUBLISH}) replay as before.
 */
final class ScriptReplayFilter implements Predicate<RedisCommand<?, ?, ?>> {
    static final ScriptReplayFilter INSTANCE = new ScriptReplayFilter();

    private ScriptReplayFilter() {
    }

    @Override
    public boolean test(RedisCommand<?, ?, ?> command) {
        if (!isScript(command.getType())) {
            return false;
        }
        // completed off Lettuce's buffer handling, which runs under its endpoint lock: the caller's
        // callbacks may send commands of their own
        GlobalEventExecutor.INSTANCE.execute(() -> command.completeExceptionally(new RedisConnectionException(
                "the connection was down or dropped with the call in flight; Padlock does not let a script be sent"
                        + " again, so whether it ran is not known")));
        return true;
    }

    static boolean isScript(ProtocolKeyword type) {
        return type == CommandType.EVAL || type == CommandType.EVALSHA
                || type == CommandType.EVAL_RO || type == CommandType.EVALSHA_RO
                || type == CommandType.FCALL || type == CommandType.FCALL_RO;
    }
}
