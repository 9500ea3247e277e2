package dev.padlock.tests.topology;

import dev.padlock.spi.LockKeys;
import dev.padlock.testing.RedisAdmin;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The ACL rule a Padlock client needs on one Redis server (or a Sentinel-managed one), for the
 * locks whose names start with a prefix: docs/operating/tls-and-acl.md gives the same rule. Only the lock's own keys
 * and channels, and only the commands Padlock sends or its scripts call.
 */
final class PadlockAcl {
    /** Commands the client sends itself: scripts, the reads of isLocked / getHoldCount / remainTimeToLive, pub/sub. */
    static final String CLIENT_COMMANDS = "+evalsha +eval +exists +hget +pttl +subscribe +unsubscribe";
    /** Commands the scripts call (Redis checks a script's calls against the user's ACL too). */
    static final String SCRIPT_COMMANDS = "+time +get +set +incr +del +hset +hsetnx +hdel +hexists +hincrby +hkeys"
            + " +hgetall +hlen +lindex +lpos +lpop +lrem +rpush +zadd +zrem +zscore +pexpire +ttl +publish +pubsub|numsub";

    private PadlockAcl() {
    }

    /**
     * The rule for locks named {@code <prefix>*}: the lock key itself, every extra key of the
     * family ({@code redisson_lock_token:{...}}, the fair lock's queue and timeouts, the read
     * leases {@code {...}:...:rwlock_timeout:n}, the holders' since), the client registry's
     * entries ({@code padlock_client:*}), both unlock channels, the grant channels, and the commands.
     */
    static String rule(String prefix) {
        return "resetkeys ~" + prefix + "* ~*{" + prefix + "* ~" + LockKeys.CLIENT_PREFIX + "*"
                + " resetchannels &redisson_lock__channel:{" + prefix + "* &redisson_rwlock:{" + prefix + "*"
                + " &padlock_grant:{" + prefix + "*"
                + " -@all " + CLIENT_COMMANDS + " " + SCRIPT_COMMANDS;
    }

    /** {@code ACL SETUSER user on >password <rules...>} through {@code admin}, a user allowed to. */
    static void setUser(RedisAdmin admin, String user, String password, String rules) {
        List<String> words = new ArrayList<>(List.of("SETUSER", user, "reset", "on", ">" + password));
        words.addAll(Arrays.asList(rules.trim().split("\\s+")));
        CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8);
        words.forEach(args::add);
        admin.commands().dispatch(CommandType.ACL, new StatusOutput<>(StringCodec.UTF8), args);
    }

    /**
     * What Redis denied since the last {@code ACL LOG RESET}, as {@code "<reason> <object>"} (e.g.
     * {@code "key billing:1"}), leaving out Lettuce's {@code CLIENT SETINFO} at connect: Lettuce
     * sends it and goes on when refused (Redis 6.2 counts it as a denied {@code client}, Valkey 8
     * as {@code client|setinfo}; Redis 7.0 does not know the subcommand).
     */
    static List<String> denials(RedisAdmin admin) {
        List<String> denied = new ArrayList<>();
        for (Map<String, Object> entry : admin.commands().aclLog()) {
            Object object = entry.get("object");
            if (!"client".equals(object) && !"client|setinfo".equals(object)) {
                denied.add(entry.get("reason") + " " + entry.get("object"));
            }
        }
        return denied;
    }

    /** {@code redis://user:password@host:port} for a {@code redis://host:port} or {@code rediss://} URI. */
    static String withUser(String uri, String user, String password) {
        int start = uri.indexOf("://") + 3;
        return uri.substring(0, start) + user + ":" + password + "@" + uri.substring(start);
    }
}
