package dev.padlock.tests.soak;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.List;

/**
 * The resource a fenced lock protects: it remembers the highest token it accepted and refuses
 * every write whose token is not higher, as a storage service that takes part in fencing does.
 * It lives on a Redis of its own that the soak never faults; one Lua call compares and sets, and
 * appends the outcome to the resource's own log ({@code A <token> <writer>} for an accepted
 * write, {@code R <token> <max> <writer>} for a refused one).
 */
final class FencedResource {

    private static final String WRITE = """
            local raw = redis.call('GET', KEYS[1]) or '0'
            if tonumber(ARGV[1]) > tonumber(raw) then
              redis.call('SET', KEYS[1], ARGV[1])
              redis.call('RPUSH', KEYS[2], 'A ' .. ARGV[1] .. ' ' .. ARGV[2])
              return {1, raw}
            end
            redis.call('RPUSH', KEYS[2], 'R ' .. ARGV[1] .. ' ' .. raw .. ' ' .. ARGV[2])
            return {0, raw}
            """;

    /** The outcome of one write: whether it was accepted, and the highest token before it. */
    record Write(boolean accepted, String previousMax) {
    }

    private final RedisCommands<String, String> commands;
    private final String maxKey;
    private final String logKey;

    FencedResource(RedisCommands<String, String> commands, String run) {
        this.commands = commands;
        this.maxKey = maxKey(run);
        this.logKey = logKey(run);
    }

    static String maxKey(String run) {
        return run + ":resource:max";
    }

    static String logKey(String run) {
        return run + ":resource:log";
    }

    /** Writes with {@code token} on behalf of {@code writer} (no spaces). */
    Write write(long token, String writer) {
        List<Object> reply = commands.eval(WRITE, ScriptOutputType.MULTI, new String[] {maxKey, logKey},
                Long.toString(token), writer);
        return new Write(((Long) reply.get(0)) == 1L, String.valueOf(reply.get(1)));
    }
}
